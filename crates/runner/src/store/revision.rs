//! Which write of a key was read, and a key's content as read.

/// Which write of a key was read: an ETag (and version, where the store keeps versions) on
/// object storage, a hash of the bytes in a directory. An ETag is an MD5 of the bytes, so
/// writing the same bytes again brings an old revision back: writers that read-modify-write
/// put a counter in what they write ([`Store::update_json`] does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// ETag, or the FNV-1a hash of a file's bytes.
    pub tag: String,
    /// The object's version, if the store has versions.
    pub version: Option<String>,
}

impl Revision {
    /// The revision of a file with these bytes.
    pub fn of_bytes(bytes: &[u8]) -> Revision {
        Revision {
            tag: retrace_protocol::stable_hash::fnv1a64_hex(bytes),
            version: None,
        }
    }
}

/// A key's content as read.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Which write they came from.
    pub revision: Revision,
}
