"""The ingest benchmark measures the core users run, and says which."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import compiled
from bench import ingest as section


def test_runs_use_the_compiled_core_when_its_build_is_current(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compiled, "current", lambda: Path("build/compiled"))
    monkeypatch.setenv("SHENGJI_PURE", "1")
    words, env = section.core_environment()
    assert words == "the compiled core"
    assert "SHENGJI_PURE" not in env


def test_runs_fall_back_to_the_pure_core_without_a_current_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compiled, "current", lambda: None)
    words, env = section.core_environment()
    assert words.startswith("the pure-Python core")
    assert env["SHENGJI_PURE"] == "1"


def test_the_increment_is_new_hands_of_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily-ingest measurement's file: the base's first lines under keys no copy of the
    corpus holds, everything else as it was."""
    import gzip
    import json
    from itertools import islice

    import bench.ingest as bi
    from shengji.hhfile import iter_lines

    sample = Path(__file__).resolve().parent.parent / "data" / "sample" / "hands.jsonl.gz"
    base = tmp_path / "base.jsonl.gz"
    lines = [text for _, text in islice(iter_lines(sample), 5)]
    with gzip.open(base, "wt", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))
    monkeypatch.setattr(bi, "CACHE", tmp_path)
    monkeypatch.setattr(bi, "base_corpus", lambda: base)
    monkeypatch.setattr(bi, "INCREMENT_HANDS", 3)
    with gzip.open(bi.increment_file(), "rt", encoding="utf-8") as fh:
        got = [json.loads(line) for line in fh]
    want = [json.loads(line) for line in lines[:3]]
    assert [g["hand_id"] for g in got] == [f"{w['hand_id']}~{bi.INCREMENT_COPY}" for w in want]
    for g, w in zip(got, want, strict=True):
        assert {k: v for k, v in g.items() if k not in ("hand_id", "match_id")} == {
            k: v for k, v in w.items() if k not in ("hand_id", "match_id")
        }


ANNOTATED = """\
--------------------------------------------------------------------------------
3,720,099,059 (100.0%)  PROGRAM TOTALS
--------------------------------------------------------------------------------
Ir                       file:function
--------------------------------------------------------------------------------
  876,275,849 (23.56%)  /tmp/b/__native_native.c:CPyDef_replay___replay_record [/x/native.so]
   12,000,000 ( 0.32%)  /tmp/b/__native_native.c:CPyDef_replay___replay_record'2 [/x/native.so]
  248,914,855 ( 6.69%)  ???:__pyx_pw_7pyarrow_3lib_199array(_object*, long, _object*) [/x/lib.so]
   72,788,614 ( 1.96%)  _hashopenssl.c.h:_hashlib_openssl_sha256 [/lib/libpython3.11.so]
"""


def test_the_worker_profile_reads_each_parts_largest_inclusive_count() -> None:
    from bench import worker_profile as wp

    counts = wp.inclusive(ANNOTATED)
    assert counts["total"] == 3_720_099_059
    assert counts["replay and audit (`replay_record`)"] == 876_275_849
    assert counts["Arrow tables (`pyarrow.array`)"] == 248_914_855
    assert counts["sha256 (line hash, content hash)"] == 72_788_614
    assert "coaching review (`review_for_store`)" not in counts
    with pytest.raises(ValueError, match="PROGRAM TOTALS"):
        wp.inclusive("nothing here")


def test_the_worker_profile_counts_a_line_as_the_difference_of_two_chunks() -> None:
    from bench import worker_profile as wp

    few = {"total": 1_000, "replay and audit (`replay_record`)": 100}
    many = {"total": 1_000 + 299 * 7_000, "replay and audit (`replay_record`)": 100 + 299 * 3_000}
    line = wp.per_line(few, many, 300)
    assert line == {"total": 7_000, "replay and audit (`replay_record`)": 3_000}
    shown = "\n".join(wp.table({**line, "lines": 300}))
    assert "base corpus's 300 lines against its first 1," in shown
    assert "| replay and audit (`replay_record`) | 0.00 M | 43% |" in shown
    assert "| the rest (decoding with orjson, the Python between) | 0.00 M | 57% |" in shown
    assert "not measured" in wp.table(None)[0]


def test_cpu_seconds_reads_fields_14_and_15_after_the_command() -> None:
    """A command may hold spaces and parentheses: the fields are counted after its last `)`."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    fields = ["S", "1", "1", "1", "0", "-1", "4194560", "10", "0", "0", "0"]
    stat = f"4242 (python (a b)) {' '.join(fields)} {3 * tick} {2 * tick} 0 0 20 0 1 0"
    assert section.cpu_seconds(stat) == 5.0


def test_the_watch_counts_a_child_process_cpu_time() -> None:
    """The watch's last reading of a process that burns 0.4 CPU-seconds and ends: most of it
    (readings every 0.05 s), never more than the process used."""
    import resource
    import subprocess
    import sys

    burn = "import time\nwhile time.process_time() < 0.4: pass"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([sys.executable, "-c", burn])
    watch = section.PeakWatch(proc.pid, every=0.05)
    watch.start()
    proc.wait()
    watch.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    seen = watch.cpu[proc.pid]
    assert 0.2 <= seen <= used + 0.01
