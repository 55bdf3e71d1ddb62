//! Operator ids as types: the 11 built-in operators as an enum, a user's own as a string,
//! rather than ids compared as strings wherever an operator is chosen or applied.

use std::fmt;

/// The built-in operators of MCPEvol-Bench (Table 11), which the rules backend implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Builtin {
    ToolAddition,
    ToolReplacement,
    ToolRemoval,
    ToolIntegration,
    FlexibleExpansion,
    ConstraintMutation,
    ParameterPruning,
    InterfaceRefactoring,
    ToolDescriptionUpdate,
    ParameterDescriptionUpdate,
    JointDescriptionUpdate,
}

impl Builtin {
    /// All of them, in id order.
    pub const ALL: [Builtin; 11] = [
        Builtin::ToolAddition,
        Builtin::ToolReplacement,
        Builtin::ToolRemoval,
        Builtin::ToolIntegration,
        Builtin::FlexibleExpansion,
        Builtin::ConstraintMutation,
        Builtin::ParameterPruning,
        Builtin::InterfaceRefactoring,
        Builtin::ToolDescriptionUpdate,
        Builtin::ParameterDescriptionUpdate,
        Builtin::JointDescriptionUpdate,
    ];

    /// The id operator files and records use: `O1` ... `O11`.
    pub fn id(self) -> &'static str {
        const IDS: [&str; 11] = [
            "O1", "O2", "O3", "O4", "O5", "O6", "O7", "O8", "O9", "O10", "O11",
        ];
        IDS[self as usize]
    }

    /// The built-in operator with this id (`O5`, also `o5` and `O05`).
    pub fn parse(id: &str) -> Option<Builtin> {
        let n: usize = id.strip_prefix(['O', 'o'])?.parse().ok()?;
        Builtin::ALL.get(n.checked_sub(1)?).copied()
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Which operator: a built-in one, or one from a user's operator file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OperatorId {
    Builtin(Builtin),
    User(String),
}

impl OperatorId {
    pub fn parse(id: &str) -> OperatorId {
        Builtin::parse(id).map_or_else(|| OperatorId::User(id.to_string()), OperatorId::Builtin)
    }

    pub fn builtin(&self) -> Option<Builtin> {
        match self {
            OperatorId::Builtin(b) => Some(*b),
            OperatorId::User(_) => None,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_ids_round_trip_and_others_are_user_operators() {
        for b in Builtin::ALL {
            assert_eq!(Builtin::parse(b.id()), Some(b));
        }
        assert_eq!(Builtin::parse("O05"), Some(Builtin::FlexibleExpansion));
        assert_eq!(Builtin::parse("O12"), None);
        assert_eq!(Builtin::parse("O0"), None);
        assert_eq!(OperatorId::parse("X1"), OperatorId::User("X1".into()));
    }
}
