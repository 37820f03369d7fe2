//! Where each name's keys live: under the store's prefix, with the
//! name's Redis Cluster hash tag, so every key of a name (and every name
//! sharing a tag: one conversation's records, logs and leases) hashes to
//! one slot.

/// The key of the record `name`: the prefix and the name when the name
/// holds a hash tag (a `{` with a later `}` and something between), else
/// the prefix and the name in braces. Every other key of the name extends
/// this one, so it keeps the tag.
pub(crate) fn record(prefix: &str, name: &str) -> String {
    match tag(name) {
        Some(_) => format!("{prefix}{name}"),
        None => format!("{prefix}{{{name}}}"),
    }
}

/// The hash tag of a key, as Redis Cluster reads it: what is between the
/// first `{` and the first `}` after it, when that is not empty.
pub(crate) fn tag(key: &str) -> Option<&str> {
    let open = key.find('{')?;
    let close = key[open + 1..].find('}')?;
    (close > 0).then(|| &key[open + 1..open + 1 + close])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RedisOptions, RedisSessionStore};

    /// CRC16/XMODEM, as Redis Cluster computes slots.
    fn crc16(bytes: &[u8]) -> u16 {
        let mut crc = 0u16;
        for byte in bytes {
            crc ^= u16::from(*byte) << 8;
            for _ in 0..8 {
                crc = if crc & 0x8000 != 0 {
                    (crc << 1) ^ 0x1021
                } else {
                    crc << 1
                };
            }
        }
        crc
    }

    /// The cluster slot of a key (the Redis Cluster specification's
    /// `HASH_SLOT`).
    fn slot(key: &str) -> u16 {
        crc16(tag(key).unwrap_or(key).as_bytes()) % 16384
    }

    #[test]
    fn slots_are_the_specifications() {
        // The examples of the Redis Cluster specification.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(slot("{user1000}.following"), slot("{user1000}.followers"));
        assert_eq!(slot("foo{}{bar}"), crc16(b"foo{}{bar}") % 16384);
        assert_eq!(slot("foo{{bar}}zap"), crc16(b"{bar") % 16384);
        assert_eq!(slot("foo{bar}{zap}"), crc16(b"bar") % 16384);
    }

    /// Every key the store derives from the names a server gives one
    /// conversation (they share its `{…}` tag, see `registry-core`'s
    /// `mcp::shared`) lands in one slot, so each script and multi-key
    /// command is single-slot and the conversation lives on one node. A
    /// name without a tag is its own tag.
    #[tokio::test]
    async fn one_conversations_keys_share_a_cluster_slot() {
        let store =
            RedisSessionStore::new("redis://127.0.0.1:1/", RedisOptions::default()).unwrap();
        let session = "0f6e1c1e-5b7d-4c1e-9a43-2a4c6d0e8b11";
        let names = [
            format!("{{{session}}}record"),
            format!("{{{session}}}handshake"),
            format!("{{{session}}}answers"),
            format!("{{{session}}}call:7"),
            format!("{{{session}}}call:\"a}}b{{c\""),
        ];
        let mut keys = Vec::new();
        for name in &names {
            keys.push(store.key(name));
            let (list, counter) = store.log_keys(name);
            let (holder, live) = store.lease_keys(name);
            keys.extend([list, counter, holder, live, store.channel(name)]);
        }
        let first = slot(&keys[0]);
        assert_eq!(first, crc16(session.as_bytes()) % 16384);
        for key in &keys {
            assert_eq!(slot(key), first, "{key} is in another slot");
            assert_eq!(tag(key), Some(session), "{key}");
        }
        // A stream's log, named without a tag, keeps its list and counter
        // together under the whole name.
        let (list, counter) = store.log_keys("events:5b1c");
        assert_eq!(slot(&list), slot(&counter));
        assert_eq!(tag(&list), Some("events:5b1c"));
        // A prefix with a `{` would tag every key alike: refused.
        let braced = RedisOptions {
            key_prefix: "app{1}:".into(),
            ..RedisOptions::default()
        };
        assert!(RedisSessionStore::new("redis://127.0.0.1:1/", braced).is_err());
    }
}
