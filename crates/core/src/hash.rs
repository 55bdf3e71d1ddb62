//! The key of a file's content in the in-memory caches (anchoring, the package index).

/// Fast on megabytes, fixed for the process (SipHash cost milliseconds on megabyte files).
pub fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(bytes)
}
