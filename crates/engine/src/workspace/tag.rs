//! Version tags as a type: `v3` is version 3 of a workspace, parsed once where it comes in (a
//! git tag, a record, a flag) and written `v3` everywhere.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The tag of one version of a workspace: `v0` is the original server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct VersionTag(u32);

impl VersionTag {
    pub const ORIGINAL: VersionTag = VersionTag(0);

    pub fn new(number: u32) -> VersionTag {
        VersionTag(number)
    }

    pub fn number(self) -> u32 {
        self.0
    }

    /// The version before this one; None for `v0`.
    pub fn previous(self) -> Option<VersionTag> {
        self.0.checked_sub(1).map(VersionTag)
    }

    pub fn next(self) -> VersionTag {
        VersionTag(self.0 + 1)
    }

    /// `v3`; None for anything else (`v`, `v03`, `3`, `early`).
    pub fn parse(text: &str) -> Option<VersionTag> {
        let digits = text.strip_prefix('v')?;
        let canonical = digits == "0" || (!digits.starts_with('0') && !digits.is_empty());
        if !canonical || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(VersionTag)
    }
}

impl fmt::Display for VersionTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// Text that is not a version tag.
#[derive(Debug, Clone, thiserror::Error)]
#[error("`{0}` is not a version tag like v3")]
pub struct NotATag(pub String);

impl std::str::FromStr for VersionTag {
    type Err = NotATag;

    fn from_str(s: &str) -> Result<VersionTag, NotATag> {
        VersionTag::parse(s).ok_or_else(|| NotATag(s.to_string()))
    }
}

impl Serialize for VersionTag {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for VersionTag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<VersionTag, D::Error> {
        let text = String::deserialize(d)?;
        VersionTag::parse(&text).ok_or_else(|| serde::de::Error::custom(NotATag(text.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_parse_only_in_their_canonical_form() {
        assert_eq!(VersionTag::parse("v3"), Some(VersionTag::new(3)));
        assert_eq!(VersionTag::parse("v0"), Some(VersionTag::ORIGINAL));
        assert_eq!(VersionTag::parse("v12").map(VersionTag::number), Some(12));
        for bad in ["v", "v03", "3", "early", "v3a", "V3", "v-1"] {
            assert_eq!(VersionTag::parse(bad), None, "{bad}");
        }
        assert_eq!(VersionTag::new(5).to_string(), "v5");
        assert_eq!(VersionTag::new(5).previous(), Some(VersionTag::new(4)));
        assert_eq!(VersionTag::ORIGINAL.previous(), None);
        let json = serde_json::to_string(&VersionTag::new(2)).unwrap();
        assert_eq!(json, "\"v2\"");
        assert!(serde_json::from_str::<VersionTag>("\"late\"").is_err());
    }
}
