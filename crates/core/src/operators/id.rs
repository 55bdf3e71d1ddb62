//! Operator ids as types: the 11 built-in operators as an enum, a user's own as a name, parsed
//! once where they come in (a flag, a file, a record, a model's reply) and compared as types.
//!
//! The built-in operators are listed once, in [`builtins!`]: the enum, its order, its ids and its
//! files all come from that list, so adding one is one line here plus its file.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Declares [`Builtin`] from one list of `Variant = number, "file stem"`.
macro_rules! builtins {
    ($($variant:ident = $n:literal, $file:literal;)*) => {
        /// The built-in operators of MCPEvol-Bench (Table 11), which the rules backend implements.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Builtin {
            $($variant,)*
        }

        impl Builtin {
            /// All of them, in id order.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            /// The id operator files and records use: `O1` ... `O11`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Builtin::$variant => concat!("O", $n),)*
                }
            }

            /// Its number: 5 for `O5`.
            pub fn number(self) -> u32 {
                match self {
                    $(Builtin::$variant => $n,)*
                }
            }

            /// Its operator file: the path shown to people and the text compiled in, so that
            /// the binary needs no files beside it.
            pub(crate) fn file(self) -> (&'static str, &'static str) {
                match self {
                    $(Builtin::$variant => (
                        concat!("operators/", $file, ".md"),
                        include_str!(concat!("../../../../operators/", $file, ".md")),
                    ),)*
                }
            }
        }
    };
}

builtins! {
    ToolAddition = 1, "O01-tool-addition";
    ToolReplacement = 2, "O02-tool-replacement";
    ToolRemoval = 3, "O03-tool-removal";
    ToolIntegration = 4, "O04-tool-integration";
    FlexibleExpansion = 5, "O05-flexible-expansion";
    ConstraintMutation = 6, "O06-constraint-mutation";
    ParameterPruning = 7, "O07-parameter-pruning";
    InterfaceRefactoring = 8, "O08-interface-refactoring";
    ToolDescriptionUpdate = 9, "O09-tool-description-update";
    ParameterDescriptionUpdate = 10, "O10-parameter-description-update";
    JointDescriptionUpdate = 11, "O11-joint-description-update";
}

impl Builtin {
    /// The built-in operator with this id (`O5`, also `o5` and `O05`).
    pub fn parse(id: &str) -> Option<Builtin> {
        let n = number(id)?;
        Builtin::ALL.iter().copied().find(|b| b.number() == n)
    }
}

/// The number of an `O`-id: 5 for "O5", "o5" and "O05"; None for anything else.
fn number(id: &str) -> Option<u32> {
    let digits = id.strip_prefix(['O', 'o'])?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Which operator: a built-in one, or one from a user's operator file. User ids compare without
/// regard to case ("U1" is "u1"), as people type them.
#[derive(Debug, Clone)]
pub enum OperatorId {
    Builtin(Builtin),
    User(String),
}

impl OperatorId {
    /// The id as written anywhere: `O5`, `o05` and `O5` are the built-in Flexible Expansion;
    /// anything else names a user operator.
    pub fn parse(id: &str) -> OperatorId {
        Builtin::parse(id).map_or_else(|| OperatorId::User(id.to_string()), OperatorId::Builtin)
    }

    pub fn builtin(&self) -> Option<Builtin> {
        match self {
            OperatorId::Builtin(b) => Some(*b),
            OperatorId::User(_) => None,
        }
    }

    /// The id as written in files and records: `O5`, or the user's own as they wrote it.
    pub fn as_str(&self) -> &str {
        match self {
            OperatorId::Builtin(b) => b.id(),
            OperatorId::User(id) => id,
        }
    }

    /// How ids sort and compare: numbered ids by number (`O12` is `o012`), then the others
    /// by lowercase id.
    fn key(&self) -> (u32, String) {
        match self {
            OperatorId::Builtin(b) => (b.number(), String::new()),
            OperatorId::User(id) => match number(id) {
                Some(n) => (n, String::new()),
                None => (u32::MAX, id.to_ascii_lowercase()),
            },
        }
    }
}

impl From<Builtin> for OperatorId {
    fn from(b: Builtin) -> OperatorId {
        OperatorId::Builtin(b)
    }
}

impl PartialEq for OperatorId {
    fn eq(&self, other: &OperatorId) -> bool {
        self.key() == other.key()
    }
}

impl Eq for OperatorId {}

impl std::hash::Hash for OperatorId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl PartialOrd for OperatorId {
    fn partial_cmp(&self, other: &OperatorId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OperatorId {
    fn cmp(&self, other: &OperatorId) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl fmt::Display for OperatorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OperatorId::Builtin(b) => b.fmt(f),
            OperatorId::User(id) => f.write_str(id),
        }
    }
}

impl std::str::FromStr for OperatorId {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<OperatorId, Self::Err> {
        Ok(OperatorId::parse(s))
    }
}

impl Serialize for OperatorId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for OperatorId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<OperatorId, D::Error> {
        let text = String::deserialize(d)?;
        Ok(OperatorId::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_ids_round_trip_and_others_are_user_operators() {
        for &b in Builtin::ALL {
            assert_eq!(Builtin::parse(b.id()), Some(b));
            assert!(b.file().1.contains(&format!("id = \"{}\"", b.id())), "{b}");
        }
        assert_eq!(Builtin::ALL.len(), 11);
        assert_eq!(Builtin::parse("O05"), Some(Builtin::FlexibleExpansion));
        assert_eq!(Builtin::parse("O12"), None);
        assert_eq!(Builtin::parse("O0"), None);
        assert_eq!(OperatorId::parse("X1"), OperatorId::User("X1".into()));
    }

    #[test]
    fn ids_compare_as_people_write_them() {
        assert_eq!(OperatorId::parse("o05"), OperatorId::parse("O5"));
        assert_eq!(OperatorId::parse("u1"), OperatorId::parse("U1"));
        assert_ne!(OperatorId::parse("U1"), OperatorId::parse("U2"));
        assert_eq!(OperatorId::parse("O12"), OperatorId::parse("o012"));
        let json = serde_json::to_string(&OperatorId::parse("o5")).unwrap();
        assert_eq!(json, "\"O5\"");
        let back: OperatorId = serde_json::from_str("\"X-mine\"").unwrap();
        assert_eq!(back, OperatorId::User("X-mine".into()));
        assert!(OperatorId::parse("O2") < OperatorId::parse("O10"));
        assert!(OperatorId::parse("O11") < OperatorId::parse("A1"));
    }
}
