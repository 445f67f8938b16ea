//! Controller ratings: the network's whole enumeration, not only the 1..5 the spec lists.

use std::borrow::Cow;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rating {
    Inactive,
    Suspended,
    Observer,
    S1,
    S2,
    S3,
    C1,
    C2,
    C3,
    I1,
    I2,
    I3,
    Supervisor,
    Administrator,
    /// A number the network has not defined (yet); shown, never an error.
    Unknown(i64),
}

const KNOWN: [(i64, Rating, &str, &str); 14] = [
    (-1, Rating::Inactive, "INA", "Inactive"),
    (0, Rating::Suspended, "SUS", "Suspended"),
    (1, Rating::Observer, "OBS", "Observer"),
    (2, Rating::S1, "S1", "Tower Trainee"),
    (3, Rating::S2, "S2", "Tower Controller"),
    (4, Rating::S3, "S3", "Senior Student"),
    (5, Rating::C1, "C1", "Enroute Controller"),
    (6, Rating::C2, "C2", "Controller 2"),
    (7, Rating::C3, "C3", "Senior Controller"),
    (8, Rating::I1, "I1", "Instructor"),
    (9, Rating::I2, "I2", "Instructor 2"),
    (10, Rating::I3, "I3", "Senior Instructor"),
    (11, Rating::Supervisor, "SUP", "Supervisor"),
    (12, Rating::Administrator, "ADM", "Administrator"),
];

impl Rating {
    pub fn from_number(n: i64) -> Rating {
        KNOWN
            .iter()
            .find(|(value, ..)| *value == n)
            .map(|(_, rating, ..)| *rating)
            .unwrap_or(Rating::Unknown(n))
    }

    /// Accepts the short code as well (`"C1"`), case-insensitively, in case a reduced roster
    /// entry carries it instead of the number.
    pub fn from_code(code: &str) -> Option<Rating> {
        let code = code.trim();
        KNOWN
            .iter()
            .find(|(_, _, short, _)| short.eq_ignore_ascii_case(code))
            .map(|(_, rating, ..)| *rating)
    }

    pub fn number(self) -> i64 {
        match self {
            Rating::Unknown(n) => n,
            known => known.entry().map_or(0, |k| k.0),
        }
    }

    /// A rating to control with: S1 and up, the network's staff ratings with them. Not
    /// inactive, suspended or observer, which are no promotion to announce (the first two
    /// are private), nor a number the network has not defined.
    pub fn is_controller(self) -> bool {
        matches!(self.number(), 2..=12) && !matches!(self, Rating::Unknown(_))
    }

    /// `C1`, or `Unknown (13)`.
    pub fn code(self) -> Cow<'static, str> {
        match self.entry() {
            Some((_, _, short, _)) => Cow::Borrowed(short),
            None => Cow::Owned(format!("Unknown ({})", self.number())),
        }
    }

    /// `Enroute Controller`, or `Unknown (13)`.
    pub fn name(self) -> Cow<'static, str> {
        match self.entry() {
            Some((_, _, _, long)) => Cow::Borrowed(long),
            None => Cow::Owned(format!("Unknown ({})", self.number())),
        }
    }

    fn entry(self) -> Option<&'static (i64, Rating, &'static str, &'static str)> {
        KNOWN.iter().find(|(_, r, ..)| *r == self)
    }
}

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_network_rating_has_its_names() {
        let expected = [
            (-1, "INA", "Inactive"),
            (0, "SUS", "Suspended"),
            (1, "OBS", "Observer"),
            (2, "S1", "Tower Trainee"),
            (3, "S2", "Tower Controller"),
            (4, "S3", "Senior Student"),
            (5, "C1", "Enroute Controller"),
            (6, "C2", "Controller 2"),
            (7, "C3", "Senior Controller"),
            (8, "I1", "Instructor"),
            (9, "I2", "Instructor 2"),
            (10, "I3", "Senior Instructor"),
            (11, "SUP", "Supervisor"),
            (12, "ADM", "Administrator"),
        ];
        for (n, short, long) in expected {
            let rating = Rating::from_number(n);
            assert_eq!(
                (rating.code().as_ref(), rating.name().as_ref()),
                (short, long)
            );
            assert_eq!(rating.number(), n);
            assert_eq!(Rating::from_code(&short.to_lowercase()), Some(rating));
        }
    }

    #[test]
    fn controller_ratings_are_s1_and_up_and_nothing_else() {
        let controllers: Vec<i64> = (-1..=12)
            .filter(|n| Rating::from_number(*n).is_controller())
            .collect();
        assert_eq!(controllers, (2..=12).collect::<Vec<_>>());
        assert!(!Rating::Unknown(13).is_controller());
        assert!(!Rating::Unknown(5).is_controller());
    }

    #[test]
    fn other_numbers_are_unknown_not_errors() {
        for n in [13, 99, -2, i64::MAX] {
            let rating = Rating::from_number(n);
            assert_eq!(rating, Rating::Unknown(n));
            assert_eq!(rating.code(), format!("Unknown ({n})"));
            assert_eq!(rating.name(), format!("Unknown ({n})"));
        }
        assert_eq!(Rating::from_code("X9"), None);
    }
}
