//! Reading a child's output stream to its end, keeping at most a cap of it: the head and the
//! tail, since a failing test run says what broke at its end and what ran at its start.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// What was read of one stream.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    /// The bytes kept: all of them, or the head, a marker and the tail.
    pub(crate) bytes: Vec<u8>,
    /// How many bytes the stream carried in all.
    pub(crate) total: u64,
    /// The SHA-256 of everything the stream carried, as lowercase hex.
    pub(crate) sha256: String,
}

/// A stream being read: its head, its tail, its length and its hash so far. It can be
/// finished at any time, so a reader that never sees the stream's end (a process that escaped
/// its group holds the pipe) still answers what it read.
#[derive(Debug, Clone)]
pub(crate) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
    hasher: Sha256,
}

impl Capture {
    /// Returns an empty capture. With a cap, it keeps the first half of the cap and the last
    /// half.
    pub(crate) fn new(cap: Option<usize>) -> Capture {
        let (head_cap, tail_cap) = match cap {
            Some(cap) => (cap / 2, cap - cap / 2),
            None => (usize::MAX, 0),
        };
        Capture {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap,
            total: 0,
            hasher: Sha256::new(),
        }
    }

    /// Adds `chunk`, the next bytes of the stream.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        self.hasher.update(chunk);
        let room = self.head_cap.saturating_sub(self.head.len());
        let into_head = room.min(chunk.len());
        self.head.extend_from_slice(&chunk[..into_head]);
        chunk = &chunk[into_head..];
        if chunk.is_empty() {
            return;
        }
        if chunk.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + chunk.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(chunk);
        }
    }

    /// Returns what was read so far: the bytes kept, joined by a line that says how many were
    /// left out, the total and the hash.
    pub(crate) fn finish(&self) -> Captured {
        let kept = self.head.len() as u64 + self.tail.len() as u64;
        let mut bytes = self.head.clone();
        if kept < self.total {
            bytes.extend_from_slice(
                format!("\n… ({} bytes of output left out) …\n", self.total - kept).as_bytes(),
            );
        }
        bytes.extend(&self.tail);
        let sha256 =
            self.hasher
                .clone()
                .finalize()
                .iter()
                .fold(String::with_capacity(64), |mut s, b| {
                    use std::fmt::Write as _;
                    let _ = write!(s, "{b:02x}");
                    s
                });
        Captured {
            bytes,
            total: self.total,
            sha256,
        }
    }
}

/// Reads `reader` into `shared` until its end (or a read error, which ends a pipe the same
/// way).
pub(crate) fn capture_into(mut reader: impl Read, shared: &Mutex<Capture>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // A broken pipe ends the stream like its end does.
            Err(_) => break,
        };
        // A poisoned lock means a reader panicked; what it read is still the stream's.
        let mut capture = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        capture.push(&buf[..n]);
    }
}

/// Reads `reader` to its end, keeping at most `cap` bytes (head and tail).
#[cfg(test)]
pub(crate) fn capture(reader: impl Read, cap: Option<usize>) -> Captured {
    let shared = Mutex::new(Capture::new(cap));
    capture_into(reader, &shared);
    shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_cap_everything_is_kept() {
        let c = capture(&b"hello world"[..], None);
        assert_eq!(c.bytes, b"hello world");
        assert_eq!(c.total, 11);
        assert_eq!(
            c.sha256,
            "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
        );
    }

    #[test]
    fn a_cap_keeps_head_and_tail() {
        let text: Vec<u8> = (0..100u8).collect();
        let c = capture(&text[..], Some(10));
        assert_eq!(c.total, 100);
        assert!(c.bytes.starts_with(&[0, 1, 2, 3, 4]));
        assert!(c.bytes.ends_with(&[95, 96, 97, 98, 99]));
        let marker = String::from_utf8_lossy(&c.bytes[5..c.bytes.len() - 5]).into_owned();
        assert_eq!(marker, "\n… (90 bytes of output left out) …\n");
    }

    #[test]
    fn output_within_the_cap_is_whole() {
        let c = capture(&b"0123456789"[..], Some(10));
        assert_eq!(c.bytes, b"0123456789");
    }

    /// A reader that hands out its bytes a few at a time.
    struct Dribble<'a>(&'a [u8], usize);

    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(self.0.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    proptest::proptest! {
        #[test]
        fn head_and_tail_are_the_streams_own(
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..400),
            cap in 1usize..64,
            step in 1usize..40,
        ) {
            let c = capture(Dribble(&data, step), Some(cap));
            proptest::prop_assert_eq!(c.total, data.len() as u64);
            if data.len() <= cap {
                proptest::prop_assert_eq!(&c.bytes, &data);
            } else {
                let half = cap / 2;
                proptest::prop_assert!(c.bytes.starts_with(&data[..half]));
                proptest::prop_assert!(c.bytes.ends_with(&data[data.len() - (cap - half)..]));
            }
        }
    }
}
