//! Rules as data: ko rule, suicide, dead-stone handling, komi and handicap compensation,
//! with named presets. Nothing here plays moves.

/// Which repetitions are forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KoRule {
    /// Only the immediate recapture of a single stone is forbidden.
    Simple,
    /// No move may recreate an earlier whole-board position.
    Positional,
    /// No move may recreate an earlier whole-board position with the same player to move.
    Situational,
}

/// A rule set. Scoring is always area counting (stones plus surrounded points).
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// Preset name, for messages and SGF `RU`.
    pub name: &'static str,
    pub ko: KoRule,
    /// Whether a move that leaves its own chain without liberties is allowed (the chain is
    /// then removed).
    pub suicide_allowed: bool,
    /// Whether dead stones are removed before counting (false: every stone counts alive).
    pub remove_dead: bool,
    /// Whether White receives one point per handicap stone (Chinese rules: Black "returns
    /// half a stone" per stone).
    pub handicap_compensation: bool,
    /// Komi given to White, in points.
    pub komi: f64,
}

impl Rules {
    /// Chinese rules: positional superko, no suicide, area counting, dead stones removed,
    /// handicap compensation, komi 7.5.
    pub fn chinese() -> Rules {
        Rules {
            name: "chinese",
            ko: KoRule::Positional,
            suicide_allowed: false,
            remove_dead: true,
            handicap_compensation: true,
            komi: 7.5,
        }
    }

    /// Tromp-Taylor: positional superko, suicide allowed, every stone on the board counts as
    /// alive, no handicap compensation, komi 7.5.
    pub fn tromp_taylor() -> Rules {
        Rules {
            name: "tromp-taylor",
            ko: KoRule::Positional,
            suicide_allowed: true,
            remove_dead: false,
            handicap_compensation: false,
            komi: 7.5,
        }
    }

    /// The preset called `name` (`chinese`, `tromp-taylor`), if any.
    pub fn by_name(name: &str) -> Option<Rules> {
        match name.to_ascii_lowercase().as_str() {
            "chinese" | "cn" => Some(Rules::chinese()),
            "tromp-taylor" | "tromp_taylor" | "tt" => Some(Rules::tromp_taylor()),
            _ => None,
        }
    }

    /// The preset names.
    pub const PRESETS: [&'static str; 2] = ["chinese", "tromp-taylor"];
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::chinese()
    }
}
