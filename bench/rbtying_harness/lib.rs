#![allow(dead_code, unused_imports, unused_variables, unused_mut)]
pub mod format_match;
pub mod hands;
pub mod multiset_iter;
pub mod ordered_card;
pub mod trick;
pub mod types;
pub mod itertools;

#[macro_export]
macro_rules! impl_slog_value {
    ($x: ident) => {};
}

impl From<hands::HandError> for trick::TrickError {
    fn from(source: hands::HandError) -> Self {
        trick::TrickError::HandError { source }
    }
}
