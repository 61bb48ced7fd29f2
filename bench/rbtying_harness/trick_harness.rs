impl Trick {
    /// Harness only: a follower's play without the legality check, as `play_cards` records it.
    pub fn harness_follow(&mut self, id: PlayerID, hands: &mut Hands, cards: &[Card]) -> bool {
        let mut cards = cards.to_vec();
        cards.sort_by(|a, b| self.trump.compare(*a, *b));
        let legal = self
            .trick_format
            .as_ref()
            .map(|tf| {
                tf.is_legal_play(
                    hands.get(id).unwrap(),
                    &cards,
                    TrickDrawPolicy::NoProtections,
                    BombPolicy::NoBombs,
                )
            })
            .unwrap_or(false);
        hands.remove(id, cards.iter().cloned()).unwrap();
        self.player_queue.pop_front();
        let card_mapping = self
            .trick_format
            .as_ref()
            .and_then(|tf| tf.matches(&cards).ok())
            .and_then(|mut f| f.next());
        self.played_card_mappings.push(card_mapping);
        self.played_cards.push(PlayedCards {
            id,
            cards,
            bad_throw_cards: vec![],
            better_player: None,
        });
        self.current_winner = self.compute_winner(ThrowEvaluationPolicy::All);
        legal
    }

    pub fn harness_winner(&self) -> Option<PlayerID> {
        self.current_winner
    }

    pub fn harness_units(&self) -> Vec<Vec<Card>> {
        self.trick_format.as_ref().map(|tf| tf.units.iter().map(|u| u.cards()).collect()).unwrap_or_default()
    }
}
