use std::io::{self, BufRead, Write};

use rbt_harness::hands::Hands;
use rbt_harness::trick::{
    BombPolicy, CompoundFormats, PlayCards, PlayCardsMessage, ThrowEvaluationPolicy, Trick,
    TrickDrawPolicy, TrickFormat, TractorRequirements,
};
use rbt_harness::types::{Card, Number, PlayerID, Suit, Trump};

fn suit(c: char) -> Suit {
    match c {
        'S' => Suit::Spades,
        'H' => Suit::Hearts,
        'C' => Suit::Clubs,
        'D' => Suit::Diamonds,
        _ => panic!("suit {c}"),
    }
}

fn number(c: char) -> Number {
    match c {
        '2' => Number::Two, '3' => Number::Three, '4' => Number::Four, '5' => Number::Five,
        '6' => Number::Six, '7' => Number::Seven, '8' => Number::Eight, '9' => Number::Nine,
        'T' => Number::Ten, 'J' => Number::Jack, 'Q' => Number::Queen, 'K' => Number::King,
        'A' => Number::Ace, _ => panic!("rank {c}"),
    }
}

fn card(t: &str) -> Card {
    match t {
        "SJ" => Card::SmallJoker,
        "BJ" => Card::BigJoker,
        _ => {
            let cs: Vec<char> = t.chars().collect();
            Card::Suited { number: number(cs[0]), suit: suit(cs[1]) }
        }
    }
}

fn token(c: Card) -> String {
    match c {
        Card::SmallJoker => "SJ".into(),
        Card::BigJoker => "BJ".into(),
        Card::Suited { suit, number } => {
            let r = match number {
                Number::Two => '2', Number::Three => '3', Number::Four => '4', Number::Five => '5',
                Number::Six => '6', Number::Seven => '7', Number::Eight => '8', Number::Nine => '9',
                Number::Ten => 'T', Number::Jack => 'J', Number::Queen => 'Q', Number::King => 'K',
                Number::Ace => 'A',
            };
            let s = match suit { Suit::Spades => 'S', Suit::Hearts => 'H', Suit::Clubs => 'C', Suit::Diamonds => 'D' };
            format!("{r}{s}")
        }
        Card::Unknown => "??".into(),
    }
}

fn cards(s: &str) -> Vec<Card> {
    s.split_whitespace().map(card).collect()
}

fn join(cs: &[Card]) -> String {
    cs.iter().map(|c| token(*c)).collect::<Vec<_>>().join(" ")
}

fn trump(t: &str, level: &str) -> Trump {
    let n = number(level.chars().next().unwrap());
    if t == "NT" { Trump::NoTrump { number: Some(n) } } else { Trump::Standard { suit: suit(t.chars().next().unwrap()), number: n } }
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let parts: Vec<&str> = line.split('|').collect();
        let head: Vec<&str> = parts[0].split_whitespace().collect();
        let tr = trump(head[1], head[2]);
        match head[0] {
            "F" => {
                let cs = cards(parts[1]);
                match TrickFormat::from_cards(tr, TractorRequirements::default(), &cs, None, CompoundFormats::default()) {
                    Ok(tf) => {
                        let mut hands = Hands::new((0..1).map(PlayerID));
                        hands.set_trump(tr);
                        hands.add(PlayerID(0), cs.clone()).unwrap();
                        let mut trick = Trick::new(tr, (0..1).map(PlayerID), BombPolicy::NoBombs);
                        let _ = tf;
                        trick.play_cards(PlayCards {
                            id: PlayerID(0), hands: &mut hands, cards: &cs,
                            trick_draw_policy: TrickDrawPolicy::NoProtections,
                            throw_eval_policy: ThrowEvaluationPolicy::All, format_hint: None,
                            hide_throw_halting_player: false,
                            tractor_requirements: TractorRequirements::default(),
                            bomb_policy: BombPolicy::NoBombs, compound_formats: CompoundFormats::default(),
                        }).unwrap();
                        let units: Vec<String> = trick.harness_units().iter().map(|u| join(u)).collect();
                        writeln!(out, "{}", units.join(";")).unwrap();
                    }
                    Err(e) => writeln!(out, "error {e:?}").unwrap(),
                }
            }
            "T" => {
                let hs: Vec<Vec<Card>> = parts[1..5].iter().map(|p| cards(p)).collect();
                let ps: Vec<Vec<Card>> = parts[5..9].iter().map(|p| cards(p)).collect();
                let mut hands = Hands::new((0..4).map(PlayerID));
                hands.set_trump(tr);
                for (i, h) in hs.iter().enumerate() {
                    hands.add(PlayerID(i), h.clone()).unwrap();
                }
                let mut trick = Trick::new(tr, (0..4).map(PlayerID), BombPolicy::NoBombs);
                let msgs = trick.play_cards(PlayCards {
                    id: PlayerID(0), hands: &mut hands, cards: &ps[0],
                    trick_draw_policy: TrickDrawPolicy::NoProtections,
                    throw_eval_policy: ThrowEvaluationPolicy::All, format_hint: None,
                    hide_throw_halting_player: false,
                    tractor_requirements: TractorRequirements::default(),
                    bomb_policy: BombPolicy::NoBombs, compound_formats: CompoundFormats::default(),
                });
                let msgs = match msgs { Ok(m) => m, Err(e) => { writeln!(out, "error {e:?}").unwrap(); continue; } };
                let mut failed = false; let mut blocker = String::from("-"); let mut played = vec![];
                for m in msgs {
                    match m {
                        PlayCardsMessage::ThrowFailed { better_player, .. } => { failed = true; blocker = format!("{}", better_player.unwrap().0); }
                        PlayCardsMessage::PlayedCards { cards } => played = cards,
                    }
                }
                let units: Vec<String> = trick.harness_units().iter().map(|u| join(u)).collect();
                let mut illegal = vec![];
                let mut bad = false;
                for seat in 1..4 {
                    if ps[seat].len() != played.len() { bad = true; break; }
                    if !trick.harness_follow(PlayerID(seat), &mut hands, &ps[seat]) { illegal.push(seat.to_string()); }
                }
                if bad { writeln!(out, "error size failed={} forced={}", failed as u8, join(&played)).unwrap(); continue; }
                writeln!(out, "failed={} forced={} blocker={} winner={} illegal={} units={}", failed as u8, join(&played), blocker,
                    trick.harness_winner().unwrap().0, illegal.join(","), units.join(";")).unwrap();
            }
            _ => panic!("kind"),
        }
    }
}
