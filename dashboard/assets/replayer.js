// The Hand replay's table: four seats, the trick in the middle, play-by-play stepping with keys,
// autoplay, a timeline of key moments and verdicts, the trick's explanation and the review's
// verdicts beside the table (the better play drawn as ghost cards on the seat that should have
// played it), the deal, the running score and a card tracker.
//
// All data arrives as JSON (`component.data`) and is written with textContent: player names,
// hand ids and reasons come from hand-history files and are never parsed as markup.
// The position lives in the URL (`trick`, `play`) and is sent to Python (state `position`),
// so a reload, a shared link or a page rerun opens the same play.

const SPEEDS = [
  ["0.5 s", 500],
  ["1 s", 1000],
  ["2 s", 2000],
];
const COMPASS = ["south", "east", "north", "west"];
const MARK_LABEL = {
  throw: ["T", "failed throw"],
  ruff: ["R", "ruff"],
  overruff: ["O", "over-ruff"],
  bottom: ["B", "bottom captured"],
  finding: ["!", "finding"],
  inaccuracy: ["?!", "inaccuracy"],
  mistake: ["?", "mistake"],
  blunder: ["??", "blunder"],
  fault: ["X", "replay stopped"],
};
const GROUP_NAME = { T: "trump", S: "\u2660", H: "\u2665", C: "\u2663", D: "\u2666" };
const ROLE_NAME = { banker: "banker", banker_partner: "banker's partner", attacker: "attacker" };
const KIND_NAME = {
  lead: "led",
  follow: "followed",
  ruff: "ruffed",
  discard: "discarded",
  short: "short of the suit",
};
const memory = (window.__tractorReplayer = window.__tractorReplayer || {});

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function cardFace(faces, card, opts = {}) {
  const f = faces[card];
  const node = el("span", "card " + (f.red ? "red" : "black"));
  if (f.t) node.classList.add("trump");
  if (f.s === "joker") node.classList.add("joker");
  if (opts.small) node.classList.add("small");
  if (opts.ghost) node.classList.add("ghost");
  if (opts.marked && opts.marked.get(card)) {
    node.classList.add("marked");
    opts.marked.set(card, opts.marked.get(card) - 1);
  }
  node.appendChild(el("span", "rank", f.r));
  node.appendChild(el("span", "suit", f.s === "joker" ? "JKR" : f.s));
  return node;
}

function cardRow(faces, cards, opts = {}) {
  const row = el("span", "cards" + (opts.fan ? " fan" : "") + (opts.ghost ? " ghostrow" : ""));
  const sorted = [...cards].sort((a, b) => faces[b].o - faces[a].o);
  for (const c of sorted) row.appendChild(cardFace(faces, c, opts));
  return row;
}

function counts(cards) {
  const m = new Map();
  for (const c of cards) m.set(c, (m.get(c) || 0) + 1);
  return m;
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  // A new hand arrives as new data in the same element: the previous table goes first (its
  // keys, timers and nodes), so one table is ever shown.
  if (memory.dispose) memory.dispose();
  for (const old of parentElement.querySelectorAll(".replayer")) old.remove();
  if (!data || !data.hand) return undefined;
  const faces = data.faces;
  const tricks = data.tricks;
  const hand = data.hand;
  const seats = {};
  for (const s of data.seats) seats[s.seat] = s;
  const bury = data.bury || { verdicts: [], before: [], bottom: null };

  // Positions: the deal (trick 1, play 0), then each trick's plays; a trick from the second on
  // also has play 0, its table cleared with the leader to play, so `trick=N&play=0` is a place
  // of its own. A rejected hand whose fault names a trick past the last one ends with that fault.
  const positions = [{ trick: tricks.length ? 1 : 0, play: 0 }];
  tricks.forEach((t) => {
    if (t.n > 1) positions.push({ trick: t.n, play: 0 });
    t.plays.forEach((_, i) => positions.push({ trick: t.n, play: i + 1 }));
  });
  const fault = data.fault;
  const faultTrick = fault && fault.trick && fault.trick > tricks.length ? fault.trick : null;
  if (faultTrick) positions.push({ trick: faultTrick, play: 0, fault: true });
  const last = positions.length - 1;

  function indexOf(trick, play) {
    if (faultTrick && trick === faultTrick) return last;
    let best = 0;
    positions.forEach((p, i) => {
      if (!p.fault && (p.trick < trick || (p.trick === trick && p.play <= play))) best = i;
    });
    return best;
  }

  const handKey = hand.source + "\u0000" + hand.id;
  const params = new URLSearchParams(window.location.search);
  let pos;
  if (params.get("hand") === hand.id && params.get("trick")) {
    const t = parseInt(params.get("trick"), 10) || 1;
    const p = params.has("play") ? parseInt(params.get("play"), 10) : 99;
    pos = indexOf(t, isNaN(p) ? 99 : p);
  } else if (memory.hand === handKey && typeof memory.pos === "number") {
    pos = Math.min(memory.pos, last);
  } else {
    pos = indexOf(data.start.trick, data.start.play);
  }
  const sameHand = memory.hand === handKey;
  if (!sameHand) {
    memory.playing = false;
    memory.viewAs = null;
  }
  memory.hand = handKey;
  let showHands = memory.showHands !== undefined ? memory.showHands : true;
  const hidden = new Set(memory.hidden || []);
  let viewAs = typeof memory.viewAs === "number" ? memory.viewAs : null;
  let timer = null;
  let speed = memory.speed || 1000;
  let sendTimer = null;

  const name = (s) => ((seats[s] || {}).player ? String(seats[s].player) : "seat " + s);
  // The core's reasons name seats by number; the panels name the players.
  const named = (text) =>
    String(text || "").replace(/\bseat ([0-3])\b/g, (m, s) => name(parseInt(s, 10)));

  const root = el("div", "replayer");
  root.setAttribute("data-testid", "replayer");
  root.setAttribute("data-hand", hand.id);
  parentElement.appendChild(root);
  const board = el("div", "board");
  const side = el("div", "side");
  const below = el("div", "panels");
  root.appendChild(board);
  root.appendChild(side);
  root.appendChild(below);

  // --- controls ---------------------------------------------------------------------------------
  const bar = el("div", "controls");
  const buttons = {};
  const addButton = (action, label, title, fn) => {
    const b = el("button", "btn", label);
    b.type = "button";
    b.title = title;
    b.setAttribute("aria-label", title);
    b.setAttribute("data-action", action);
    b.addEventListener("click", (e) => {
      stop();
      fn();
      // A mouse click leaves no focus behind, so Space then scrolls the page instead of pressing
      // the button again; a key press (detail 0) keeps it for the keyboard's user.
      if (e.detail > 0) b.blur();
    });
    bar.appendChild(b);
    buttons[action] = b;
  };
  addButton("first", "|\u25C0", "first (Home)", () => go(0));
  addButton("prev-trick", "\u25C0\u25C0", "previous trick (Shift+\u2190)", () => go(trickStart(-1)));
  addButton("prev", "\u25C0", "previous play (\u2190)", () => go(pos - 1));
  addButton("next", "\u25B6", "next play (\u2192)", () => go(pos + 1));
  addButton("next-trick", "\u25B6\u25B6", "next trick (Shift+\u2192)", () => go(trickStart(1)));
  addButton("last", "\u25B6|", "last (End)", () => go(last));
  const play = el("button", "btn play", "Play");
  play.type = "button";
  play.setAttribute("data-action", "autoplay");
  play.title = "autoplay";
  play.addEventListener("click", (e) => {
    timer ? stop() : start();
    if (e.detail > 0) play.blur();
  });
  bar.appendChild(play);
  const speedSel = el("select", "speed");
  speedSel.title = "time per play";
  speedSel.setAttribute("aria-label", "autoplay speed");
  for (const [label, ms] of SPEEDS) {
    const o = el("option", null, label);
    o.value = String(ms);
    if (ms === speed) o.selected = true;
    speedSel.appendChild(o);
  }
  speedSel.addEventListener("change", () => {
    speed = parseInt(speedSel.value, 10);
    memory.speed = speed;
    if (timer) {
      stop();
      start();
    }
  });
  bar.appendChild(speedSel);
  const where = el("span", "where");
  where.setAttribute("data-testid", "replayer-position");
  bar.appendChild(where);
  board.appendChild(bar);

  // Seeing: every hand, none, or one seat's view (its own hand, the cards played; the bottom
  // only for the banker who took it).
  const seeing = el("div", "seeing");
  const toggle = el("label", "toggle");
  const box = el("input");
  box.type = "checkbox";
  box.checked = showHands;
  box.addEventListener("change", () => {
    showHands = box.checked;
    memory.showHands = showHands;
    render();
  });
  toggle.appendChild(box);
  toggle.appendChild(el("span", null, " show hands"));
  seeing.appendChild(toggle);
  const viewLabel = el("label", "viewas");
  viewLabel.appendChild(el("span", null, "view as "));
  const viewSel = el("select", "speed");
  viewSel.setAttribute("data-testid", "replayer-view-as");
  viewSel.setAttribute("aria-label", "view as a seat");
  const everyone = el("option", null, "everyone");
  everyone.value = "";
  viewSel.appendChild(everyone);
  for (let s = 0; s < 4; s++) {
    const o = el("option", null, name(s));
    o.value = String(s);
    if (viewAs === s) o.selected = true;
    viewSel.appendChild(o);
  }
  viewSel.addEventListener("change", () => {
    viewAs = viewSel.value === "" ? null : parseInt(viewSel.value, 10);
    memory.viewAs = viewAs;
    render();
  });
  viewLabel.appendChild(viewSel);
  seeing.appendChild(viewLabel);
  seeing.appendChild(el("span", "keys", "\u2190 \u2192 play \u00B7 Shift: trick \u00B7 Home/End"));
  board.appendChild(seeing);

  // --- timeline ---------------------------------------------------------------------------------
  const timeline = el("div", "timeline");
  timeline.setAttribute("data-testid", "replayer-timeline");
  const cells = [];
  const addCell = (n, marks, isFault) => {
    const cell = el("button", "cell" + (isFault ? " fault" : ""));
    cell.type = "button";
    cell.setAttribute("data-trick", String(n));
    cell.appendChild(el("span", "num", n));
    const titles = ["trick " + n];
    const row = el("span", "marks");
    for (const m of marks) {
      const [letter] = MARK_LABEL[m.kind] || ["?"];
      const mark = el("span", "mark " + m.kind, letter);
      mark.setAttribute("data-mark", m.kind);
      row.appendChild(mark);
      titles.push(named(m.text));
    }
    cell.appendChild(row);
    cell.title = titles.join("\n");
    cell.addEventListener("click", () => {
      stop();
      go(isFault ? last : indexOf(n, 99));
    });
    timeline.appendChild(cell);
    cells.push([n, cell]);
  };
  for (const t of tricks) addCell(t.n, t.marks, false);
  if (faultTrick) addCell(faultTrick, [{ kind: "fault", text: fault.reason }], true);
  const legend = el("div", "legend");
  for (const kind of Object.keys(MARK_LABEL)) {
    const item = el("span", "item");
    item.appendChild(el("span", "mark " + kind, MARK_LABEL[kind][0]));
    item.appendChild(el("span", null, " " + MARK_LABEL[kind][1]));
    legend.appendChild(item);
  }
  board.appendChild(timeline);
  root.appendChild(legend);

  // --- the table, the side panel and the panels below -------------------------------------------
  const table = el("div", "table");
  const seatBoxes = {};
  for (let s = 0; s < 4; s++) {
    const seatBox = el("div", "seat " + COMPASS[s]);
    seatBox.setAttribute("data-seat", String(s));
    table.appendChild(seatBox);
    seatBoxes[s] = seatBox;
  }
  const centre = el("div", "centre");
  table.appendChild(centre);
  board.appendChild(table);
  const trickPanel = el("div", "panel trick");
  trickPanel.setAttribute("data-testid", "replayer-trick");
  side.appendChild(trickPanel);
  const dealPanel = el("div", "panel deal");
  const trackPanel = el("div", "panel tracker");
  below.appendChild(dealPanel);
  below.appendChild(trackPanel);

  function trickStart(direction) {
    const cur = positions[pos];
    if (direction < 0) {
      const target = cur.trick - 1;
      return target < 1 ? 0 : indexOf(target, 99);
    }
    if (cur.fault) return last;
    const target = cur.play === 0 ? cur.trick : cur.trick + 1;
    return target > tricks.length ? last : indexOf(target, 99);
  }

  function go(i) {
    pos = Math.max(0, Math.min(last, i));
    memory.pos = pos;
    render();
    publish();
  }

  function start() {
    memory.playing = true;
    if (pos >= last) go(0);
    play.textContent = "Pause";
    play.classList.add("on");
    timer = setInterval(() => {
      if (pos >= last) stop();
      else go(pos + 1);
    }, speed);
  }

  function stop() {
    memory.playing = false;
    pause();
  }

  // A rerun can remount the component mid-autoplay: pausing for the remount is not stopping.
  function pause() {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = "Play";
    play.classList.remove("on");
  }

  function publish(quiet) {
    const p = positions[pos];
    const q = new URLSearchParams(window.location.search);
    q.set("hand", hand.id);
    q.set("source", hand.source);
    q.set("trick", String(p.trick));
    q.set("play", String(p.play));
    window.history.replaceState(window.history.state, "", window.location.pathname + "?" + q);
    // Python hears of the position once the stepping pauses: each message reruns the page.
    if (quiet) return;
    if (sendTimer) clearTimeout(sendTimer);
    sendTimer = setTimeout(() => {
      setStateValue("position", { hand: hand.id, source: hand.source, trick: p.trick, play: p.play });
    }, 700);
  }

  // Arrows, Shift+arrows, Home and End step; Page Up/Down and Space are left to the page, so the
  // keyboard still scrolls to the review below.
  function onKey(e) {
    if (!root.isConnected) return;
    const t = e.target;
    const tag = t && t.tagName ? t.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (t && t.isContentEditable))
      return;
    let handled = true;
    if (e.key === "ArrowRight") go(e.shiftKey ? trickStart(1) : pos + 1);
    else if (e.key === "ArrowLeft") go(e.shiftKey ? trickStart(-1) : pos - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(last);
    else handled = false;
    if (handled) {
      stop();
      e.preventDefault();
    }
  }
  document.addEventListener("keydown", onKey);

  function dispose() {
    pause();
    if (sendTimer) clearTimeout(sendTimer);
    document.removeEventListener("keydown", onKey);
    root.remove();
    if (memory.dispose === dispose) memory.dispose = null;
  }
  memory.dispose = dispose;

  // --- drawing ----------------------------------------------------------------------------------
  function state() {
    // Holdings, plays so far and what each seat is known to be void in, at `pos`.
    const held = {};
    for (const s of data.seats) held[s.seat] = counts(s.start);
    const played = [];
    const voids = { 0: new Set(), 1: new Set(), 2: new Set(), 3: new Set() };
    const cur = positions[pos];
    for (const t of tricks) {
      if (t.n > cur.trick && !cur.fault) break;
      const leadGroup = t.plays.length ? faces[t.plays[0].cards[0]].g : null;
      t.plays.forEach((p, i) => {
        if (!cur.fault && t.n === cur.trick && i >= cur.play) return;
        const h = held[p.seat];
        for (const c of p.cards) {
          if (h && h.get(c)) h.set(c, h.get(c) - 1);
          played.push(c);
        }
        if (i > 0 && leadGroup && (p.kind === "ruff" || p.kind === "discard" || p.kind === "short"))
          voids[p.seat].add(leadGroup);
      });
    }
    return { held, played, voids, cur };
  }

  // A seat's hand is shown unless all hands are hidden, this one is, or the view is another
  // seat's.
  const visible = (s) => showHands && !hidden.has(s) && (viewAs === null || viewAs === s);
  const bottomVisible = () => viewAs === null || viewAs === hand.banker;

  function seatLine(s) {
    const info = seats[s] || { player: "?" };
    const head = el("div", "who");
    head.appendChild(el("strong", "name", info.player || "seat " + s));
    const bits = ["seat " + s];
    if (info.role) bits.push(ROLE_NAME[info.role] || info.role);
    bits.push("team " + (s % 2));
    if (info.style) bits.push(info.style);
    head.appendChild(el("span", "meta", bits.join(" \u00B7 ")));
    const hide = el("button", "hide", hidden.has(s) ? "show" : "hide");
    hide.type = "button";
    hide.setAttribute("data-action", "hide");
    hide.setAttribute("aria-label", (hidden.has(s) ? "show " : "hide ") + name(s) + "'s hand");
    hide.addEventListener("click", () => {
      hidden.has(s) ? hidden.delete(s) : hidden.add(s);
      memory.hidden = [...hidden];
      render();
    });
    head.appendChild(hide);
    return head;
  }

  // The review's verdicts on the trick shown, once the seat judged has played (a bury's at the
  // deal): each drawn on the table too.
  function verdictsShown(trick, cur) {
    if (pos === 0) return bury.verdicts;
    if (!trick || cur.fault) return [];
    const playedSeats = new Set(trick.plays.slice(0, cur.play).map((p) => p.seat));
    return trick.verdicts.filter((v) => playedSeats.has(v.seat));
  }

  function render() {
    const st = state();
    const cur = st.cur;
    const trick = cur.fault ? null : tricks[cur.trick - 1];
    const shown = trick ? trick.plays.slice(0, cur.play) : [];
    const complete = trick && cur.play === trick.plays.length;
    const verdicts = verdictsShown(trick, cur);
    const reviewed = new Set(verdicts.map((v) => v.seat));

    if (cur.fault) where.textContent = "Trick " + cur.trick + " \u00B7 replay stopped";
    else if (!trick) where.textContent = "No tricks";
    else
      where.textContent =
        (pos === 0 ? "Deal \u00B7 " : "") +
        "Trick " + cur.trick + " of " + tricks.length + " \u00B7 play " + cur.play + " of " +
        trick.plays.length;
    for (const [action, b] of Object.entries(buttons))
      b.disabled = action.startsWith("prev") || action === "first" ? pos === 0 : pos === last;
    for (const [n, cell] of cells) cell.classList.toggle("now", n === cur.trick);

    // Seats and holdings; at the deal, the banker's hand before the bury with the buried cards
    // marked, when the review judged the bury.
    const showBury = pos === 0 && bury.verdicts.length && bury.before.length;
    for (let s = 0; s < 4; s++) {
      const seatBox = seatBoxes[s];
      seatBox.replaceChildren();
      seatBox.appendChild(seatLine(s));
      seatBox.classList.toggle("winner", Boolean(complete && trick.winner === s));
      seatBox.classList.toggle("toplay", Boolean(trick && !complete && nextSeat(trick, cur.play) === s));
      seatBox.classList.toggle("reviewed", reviewed.has(s));
      seatBox.classList.toggle("viewer", viewAs === s);
      const cards = [];
      for (const [c, n] of st.held[s] || []) for (let i = 0; i < n; i++) cards.push(c);
      const line = el("div", "holding");
      const small = s === 1 || s === 3;
      if (!visible(s)) line.appendChild(el("span", "hiddenhand", cards.length + " cards (hidden)"));
      else if (showBury && s === hand.banker && bottomVisible()) {
        line.setAttribute("data-testid", "replayer-before-bury");
        line.appendChild(el("div", "small", "before the bury (buried cards outlined):"));
        line.appendChild(cardRow(faces, bury.before, { fan: true, small, marked: counts(data.buried) }));
      } else line.appendChild(cardRow(faces, cards, { fan: true, small }));
      seatBox.appendChild(line);
      const v = [...st.voids[s]].map((g) => GROUP_NAME[g]);
      if (v.length) seatBox.appendChild(el("div", "void", "void: " + v.join(" ")));
    }

    // The trick in the middle, with the better plays as ghost cards at the seats judged.
    centre.replaceChildren();
    if (cur.fault) {
      const f = el("div", "faultbox");
      f.setAttribute("data-testid", "replayer-fault");
      f.appendChild(el("strong", null, "Replay stopped at trick " + cur.trick));
      f.appendChild(el("div", null, named(fault.reason) + " (" + fault.code + ")"));
      centre.appendChild(f);
    } else if (showBury) {
      centre.appendChild(buryBox());
    } else if (pos === 0) {
      centre.appendChild(el("div", "hint", "The deal: press \u2192 to play the first lead."));
    } else if (trick && cur.play === 0) {
      centre.appendChild(el("div", "hint", name(trick.leader) + " to lead trick " + trick.n + "."));
    }
    const ghosts = {};
    if (!showBury) for (const v of verdicts) if (v.better.length) ghosts[v.seat] = v;
    for (const p of shown) {
      const spot = el("div", "spot " + COMPASS[p.seat]);
      if (complete && trick.winner === p.seat) spot.classList.add("won");
      if (reviewed.has(p.seat)) spot.classList.add("reviewed");
      // A throw's many cards in small faces, so the four plays keep to their places.
      const many = p.cards.length > 4 || (ghosts[p.seat] && ghosts[p.seat].better.length > 4);
      const own = el("div", "own");
      own.appendChild(cardRow(faces, p.cards, { small: many }));
      const label = KIND_NAME[p.kind] || p.kind;
      own.appendChild(el("div", "kind" + (p.legal ? "" : " illegal"), p.legal ? label : label + " (illegal)"));
      spot.appendChild(own);
      const g = ghosts[p.seat];
      if (g) {
        const ghost = el("div", "ghostplay");
        ghost.setAttribute("data-testid", "replayer-ghost");
        ghost.setAttribute("data-seat", String(p.seat));
        ghost.appendChild(cardRow(faces, g.better, { ghost: true, small: many }));
        ghost.appendChild(el("div", "kind", "better (" + g.mark + ")"));
        spot.appendChild(ghost);
      }
      centre.appendChild(spot);
    }

    drawTrickPanel(trick, cur, complete, verdicts);
    drawDeal();
    drawTracker(st);
  }

  function buryBox() {
    const b = el("div", "burybox");
    b.setAttribute("data-testid", "replayer-bury");
    b.appendChild(el("strong", null, "The bury by " + name(hand.banker)));
    if (!bottomVisible()) {
      b.appendChild(el("div", null, "Only the banker saw the bottom and the bury."));
      return b;
    }
    const orig = el("div", "buryline");
    orig.appendChild(el("span", "what", "original bottom "));
    if (bury.bottom) orig.appendChild(cardRow(faces, bury.bottom, { small: true }));
    else orig.appendChild(el("span", "small", "not in the store (the source file is not readable)"));
    b.appendChild(orig);
    const buried = el("div", "buryline");
    buried.appendChild(el("span", "what", "buried "));
    buried.appendChild(cardRow(faces, data.buried, { small: true }));
    b.appendChild(buried);
    for (const v of bury.verdicts) {
      if (!v.better.length) continue;
      const better = el("div", "buryline");
      better.setAttribute("data-testid", "replayer-ghost");
      better.appendChild(el("span", "what", "better (" + v.mark + ") "));
      better.appendChild(cardRow(faces, v.better, { small: true, ghost: true }));
      b.appendChild(better);
    }
    return b;
  }

  function nextSeat(trick, played) {
    return played < trick.plays.length ? trick.plays[played].seat : null;
  }

  function verdictBox(v) {
    const vbox = el("div", "coachbox " + v.severity);
    vbox.setAttribute("data-testid", "replayer-verdict");
    const head = el("div", "vhead");
    head.appendChild(el("span", "mark " + v.severity, v.mark));
    head.appendChild(el("strong", null, " " + name(v.seat) + ": " + v.severity + " \u00B7 " + v.label));
    if (v.cost) head.appendChild(el("span", "cost", " \u2212" + Number(v.cost).toFixed(v.cost % 1 ? 1 : 0) + " points"));
    vbox.appendChild(head);
    const line = el("div", "vplay");
    line.appendChild(el("span", null, "played "));
    line.appendChild(cardRow(faces, v.play, { small: true }));
    if (v.better.length) {
      line.appendChild(el("span", null, " better "));
      line.appendChild(cardRow(faces, v.better, { small: true, ghost: true }));
    }
    vbox.appendChild(line);
    vbox.appendChild(el("div", "vreason", named(v.reason)));
    if (v.help) vbox.appendChild(el("div", "small vhelp", v.help));
    return vbox;
  }

  function drawTrickPanel(trick, cur, complete, verdicts) {
    trickPanel.replaceChildren();
    // Score first: short, and always in the same place.
    const done = cur.fault ? tricks.length : complete ? cur.trick : cur.trick - 1;
    const total = done >= 1 ? tricks[done - 1].attackers_total : 0;
    const score = el("div", "score");
    score.setAttribute("data-testid", "replayer-score");
    score.appendChild(el("span", "big", String(total)));
    score.appendChild(el("span", null, " attackers' points after " + done + " trick" + (done === 1 ? "" : "s")));
    if (done >= 1 && tricks[done - 1].penalty)
      score.appendChild(el("div", "small", "includes a penalty of " + tricks[done - 1].penalty + " (R4.5)"));
    trickPanel.appendChild(score);
    trickPanel.appendChild(sparkline(done));
    trickPanel.appendChild(el("h4", null, pos === 0 ? "The deal" : trick ? "Trick " + trick.n : "This trick"));
    if (cur.fault) {
      const fbox = el("div", "alert");
      fbox.appendChild(el("strong", null, "Rejected: "));
      fbox.appendChild(el("span", null, named(fault.reason)));
      fbox.appendChild(el("div", "small", "code " + fault.code + " \u00B7 the tricks before it are kept"));
      trickPanel.appendChild(fbox);
    } else if (trick) {
      trickPanel.appendChild(el("div", null, name(trick.leader) + " leads: " + trick.lead_shape));
      if (trick.throw && cur.play >= 1) {
        const t = el("div", trick.throw_failed ? "alert" : "ok");
        if (trick.throw_failed) {
          t.appendChild(el("strong", null, "Throw failed (R4.3): "));
          t.appendChild(el("span", null, "tried "));
          t.appendChild(cardRow(faces, trick.throw_cards, { small: true }));
          t.appendChild(el("span", null, " \u2014 " + name(trick.blocker) + " held "));
          t.appendChild(cardRow(faces, trick.blocking_cards, { small: true }));
          t.appendChild(el("span", null, ", so only "));
          t.appendChild(cardRow(faces, trick.forced_cards, { small: true }));
          t.appendChild(el("span", null, " was played (R4.4)."));
        } else {
          t.appendChild(el("strong", null, "Throw stood (R4.3): "));
          t.appendChild(el("span", null, "nobody could beat a component."));
        }
        trickPanel.appendChild(t);
      }
      if (complete) {
        const side = trick.attackers_won ? "attackers" : "banker team";
        const won = el("div", "result");
        won.appendChild(el("strong", null, "Won by " + name(trick.winner) + " (" + side + ")"));
        trickPanel.appendChild(won);
        trickPanel.appendChild(el("div", "reason", named(trick.reason)));
        for (const f of trick.findings) {
          const fbox = el("div", "alert");
          fbox.appendChild(el("strong", null, f.code + ": "));
          fbox.appendChild(el("span", null, named(f.reason)));
          trickPanel.appendChild(fbox);
        }
      }
    }
    for (const v of verdicts) trickPanel.appendChild(verdictBox(v));
    const pending = trick && !cur.fault && pos !== 0 ? trick.verdicts.length - verdicts.length : 0;
    if (pending > 0)
      trickPanel.appendChild(el("div", "small", pending + " verdict" + (pending === 1 ? "" : "s") + " of this trick once the seat has played"));
    if (pos === last && !cur.fault && hand.bottom_captured !== null && hand.bottom_captured !== undefined) {
      const end = el("div", hand.bottom_captured ? "alert bottom" : "ok");
      if (hand.bottom_captured)
        end.textContent =
          "Bottom captured by " + name(hand.bottom_winner) + ": " + hand.bottom_points + " \u00D7 " +
          hand.bottom_multiplier + " = " + hand.bottom_added + " (R7.2, last lead " +
          hand.last_lead_shape + ").";
      else end.textContent = "The banker team kept the bottom (" + hand.bottom_points + " points, R7.2).";
      trickPanel.appendChild(end);
      const fin = el("div", "final");
      fin.setAttribute("data-testid", "replayer-final");
      fin.textContent =
        "Final: attackers " + hand.attackers_points + " points (tricks and penalties " +
        hand.trick_points + ", bottom " + hand.bottom_added + ")" +
        (hand.level_up_team !== null && hand.level_up_team !== undefined
          ? " \u00B7 " + (hand.banker_won ? "banker team" : "attackers") + " +" + hand.level_up
          : "");
      trickPanel.appendChild(fin);
    }
  }

  function sparkline(done) {
    const w = 300, h = 40, n = Math.max(1, tricks.length);
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", String(w));
    svg.setAttribute("height", String(h));
    svg.setAttribute("class", "spark");
    const top = Math.max(80, hand.attackers_points || 0, ...tricks.map((t) => t.attackers_total));
    const x = (i) => (i / n) * (w - 4) + 2;
    const y = (v) => h - 2 - (Math.max(0, v) / top) * (h - 6);
    let d = "M" + x(0) + " " + y(0);
    tricks.forEach((t, i) => (d += " H" + x(i + 1) + " V" + y(t.attackers_total)));
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", d);
    path.setAttribute("class", "line");
    svg.appendChild(path);
    const now = document.createElementNS(ns, "line");
    now.setAttribute("x1", String(x(done)));
    now.setAttribute("x2", String(x(done)));
    now.setAttribute("y1", "0");
    now.setAttribute("y2", String(h));
    now.setAttribute("class", "now");
    svg.appendChild(now);
    return svg;
  }

  function drawDeal() {
    dealPanel.replaceChildren();
    dealPanel.appendChild(el("h4", null, "The deal"));
    const t = el("div");
    t.appendChild(el("span", null, "Trump "));
    t.appendChild(
      el(
        "strong",
        hand.trump === "H" || hand.trump === "D" ? "redtext" : null,
        hand.trump === "NT" ? "no-trump" : GROUP_NAME[hand.trump] || "\u2014",
      ),
    );
    t.appendChild(el("span", null, " \u00B7 level " + (hand.level || "\u2014") + " \u00B7 set by " + (hand.trump_source || "\u2014")));
    dealPanel.appendChild(t);
    const meta = [hand.played_at || "undated", "match " + (hand.match_id || "\u2014") + " #" + (hand.hand_no || "\u2014"), hand.status];
    dealPanel.appendChild(el("div", "small", meta.join(" \u00B7 ")));
    for (const b of data.bids) {
      const line = el("div", "bid");
      line.appendChild(el("span", null, b.kind + " by " + name(b.seat) + ": "));
      line.appendChild(cardRow(faces, b.cards, { small: true }));
      if (!b.valid) line.appendChild(el("span", "illegal", " invalid"));
      dealPanel.appendChild(line);
    }
    if (data.buried.length) {
      const line = el("div", "bid");
      line.appendChild(el("span", null, "buried by " + name(hand.banker) + ": "));
      if (bottomVisible()) line.appendChild(cardRow(faces, data.buried, { small: true }));
      else line.appendChild(el("span", "hiddenhand", "8 cards (only the banker saw them)"));
      dealPanel.appendChild(line);
    }
    for (const f of data.findings) {
      const fbox = el("div", "alert");
      fbox.appendChild(el("strong", null, f.code + ": "));
      fbox.appendChild(el("span", null, named(f.reason)));
      dealPanel.appendChild(fbox);
    }
    if (fault && !faultTrick && fault.trick === null) {
      const fbox = el("div", "alert");
      fbox.setAttribute("data-testid", "replayer-fault");
      fbox.appendChild(el("strong", null, "Rejected before play: "));
      fbox.appendChild(el("span", null, named(fault.reason) + " (" + fault.code + ")"));
      dealPanel.appendChild(fbox);
    }
  }

  function drawTracker(st) {
    trackPanel.replaceChildren();
    trackPanel.appendChild(el("h4", null, "Not yet played"));
    const left = new Map();
    for (let c = 0; c < 54; c++) left.set(c, hand.decks);
    let pointsOut = 0;
    for (let c = 0; c < 54; c++) pointsOut += faces[c].p * hand.decks;
    for (const c of st.played) {
      left.set(c, left.get(c) - 1);
      pointsOut -= faces[c].p;
    }
    trackPanel.appendChild(el("div", "small", pointsOut + " points still out (bottom included)"));
    for (const g of ["T", "S", "H", "C", "D"]) {
      const cards = [...left.keys()]
        .filter((c) => faces[c].g === g)
        .sort((a, b) => faces[b].o - faces[a].o);
      if (!cards.length) continue; // a suit that is all trump (its cards are in the trump row)
      const row = el("div", "track");
      row.setAttribute("data-group", g);
      row.appendChild(el("span", "group" + (g === "H" || g === "D" ? " redtext" : ""), GROUP_NAME[g]));
      let total = 0;
      for (const c of cards) {
        const n = left.get(c);
        total += n;
        if (!n) continue;
        const f = faces[c];
        const chip = el("span", "chip " + (f.red ? "redtext" : ""));
        chip.title = n + " unseen";
        chip.appendChild(el("span", null, f.s === "joker" ? f.r : g === "T" ? f.r + f.s : f.r));
        if (n > 1) chip.appendChild(el("sub", null, String(n)));
        row.appendChild(chip);
      }
      row.appendChild(el("span", "small count", total + " left"));
      trackPanel.appendChild(row);
    }
  }

  render();
  memory.pos = pos;
  publish(true);
  if (sameHand && memory.playing && pos < last) start();
  return dispose;
}
