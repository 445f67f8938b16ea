//! What the marker remembers of each file this tool wrote, so that an unchanged rebuild need
//! not read it again: its length, mtime and inode as the file system last showed them, and a
//! hash of its bytes (XXH3-128). A new file whose bytes hash to the recorded hash, over an old
//! file that still has the recorded length, mtime and inode, is the old file: it is kept
//! without being opened, as git's index and rsync's quick check keep a file.
//!
//! What this trusts: that a file whose length, mtime (to the nanosecond, as the file system
//! keeps it) and inode are as recorded holds the bytes it held. A hand edit that keeps the
//! length and puts the mtime back (`touch -d`) is not noticed until the file's bytes change in
//! the build. A file replaced by another (an editor's save renames a new file over it) has a
//! new inode, and one written to has a new mtime: both are compared byte by byte, as before.
//!
//! An edit within the file system's clock tick after this tool wrote the file would keep its
//! mtime too. That is closed as git closes its "racy clean" entries: the marker is written
//! after every file it lists (a new file is out of reach, in the staging folder, until then),
//! so an edit in the tick of a file's stamp can hide only on a file whose mtime is not older
//! than the marker's. Such a stamp is not trusted ([`distrust_racy`]): the file is compared.

use std::fs::Metadata;

/// One file's stamp. In the marker it is one string, `LEN MTIME_S MTIME_NS INODE HASH`
/// (decimal numbers, the hash in 32 hex digits), so that a damaged entry is only that file's
/// loss: it is read as no stamp, and the file is compared as it would be without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    pub seen: Seen,
    pub hash: u128,
    /// For a page made from inputs the render stage hashed, that hash: a rebuild whose
    /// inputs hash the same, over a file that still looks as recorded, need not make the
    /// page at all. In the marker, a sixth field.
    pub input: Option<u128>,
}

/// A file as the file system shows it, without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Seen {
    len: u64,
    mtime: i64,
    mtime_ns: i64,
    inode: u64,
}

/// The hash a stamp records of a file's bytes.
pub(super) fn hash(contents: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(contents)
}

impl Seen {
    #[cfg(unix)]
    pub fn of(meta: &Metadata) -> Option<Seen> {
        use std::os::unix::fs::MetadataExt;
        Some(Seen {
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_ns: meta.mtime_nsec(),
            inode: meta.ino(),
        })
    }

    /// Without inodes there is nothing to tell a replaced file by: no shortcut.
    #[cfg(not(unix))]
    pub fn of(_: &Metadata) -> Option<Seen> {
        None
    }
}

/// Forgets each stamp whose file's mtime is not older than the marker's (`marker`, how the
/// marker looked; none, every stamp): an edit of the same length in the same clock tick as
/// the build's write would not have changed it.
pub(super) fn distrust_racy<'a>(
    stamps: impl Iterator<Item = &'a mut Option<Stamp>>,
    marker: Option<Seen>,
) {
    for stamp in stamps {
        let settled = matches!((&stamp, marker), (Some(s), Some(marker))
            if (s.seen.mtime, s.seen.mtime_ns) < (marker.mtime, marker.mtime_ns));
        if !settled {
            *stamp = None;
        }
    }
}

impl Stamp {
    pub fn encode(&self) -> String {
        let Seen {
            len,
            mtime,
            mtime_ns,
            inode,
        } = self.seen;
        match self.input {
            Some(input) => format!(
                "{len} {mtime} {mtime_ns} {inode} {:032x} {input:032x}",
                self.hash
            ),
            None => format!("{len} {mtime} {mtime_ns} {inode} {:032x}", self.hash),
        }
    }

    /// The stamp written by [`Stamp::encode`]; anything else (an empty string where a file has
    /// no stamp, a damaged or hand-edited entry) is none.
    pub fn decode(text: &str) -> Option<Stamp> {
        // By hand: a rebuild decodes one per file, and `str::parse` on each field, with a
        // `u128` from hex, was most of the cost of reading a large site's marker.
        let mut fields = text.as_bytes().split(|&b| b == b' ');
        let mut number = || decimal(fields.next()?);
        let seen = Seen {
            len: number()?,
            mtime: i64::try_from(number()?).ok()?,
            mtime_ns: i64::try_from(number()?).ok()?,
            inode: number()?,
        };
        let hash = hex128(fields.next()?)?;
        let input = match fields.next() {
            Some(input) => Some(hex128(input)?),
            None => None,
        };
        if fields.next().is_some() {
            return None;
        }
        Some(Stamp { seen, hash, input })
    }
}

/// 32 lower-case hex digits, as `encode` writes a hash. Read by table, in two halves: a
/// rebuild reads one or two a file, and `char::to_digit` into a `u128` was most of the cost.
fn hex128(digits: &[u8]) -> Option<u128> {
    let (high, low) = digits
        .split_at_checked(16)
        .filter(|(_, low)| low.len() == 16)?;
    Some(u128::from(hex64(high)?) << 64 | u128::from(hex64(low)?))
}

/// The value of each byte as a lower-case hex digit, or `NOT_HEX` (an upper-case one is not a
/// digit `encode` writes, so not a stamp of ours).
const HEX_VALUE: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut digit = 0;
    while digit < 16 {
        table[b"0123456789abcdef"[digit] as usize] = digit as u8;
        digit += 1;
    }
    table
};
const NOT_HEX: u8 = 0xff;

fn hex64(digits: &[u8]) -> Option<u64> {
    let mut value = 0u64;
    let mut bad = 0u8;
    for &digit in digits {
        let nibble = HEX_VALUE[usize::from(digit)];
        bad |= nibble & 0xf0;
        value = value << 4 | u64::from(nibble & 0x0f);
    }
    (bad == 0).then_some(value)
}

/// A number of decimal digits only, as `encode` writes it.
fn decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &digit| {
        let digit = digit.checked_sub(b'0').filter(|d| *d <= 9)?;
        n.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_reads_back_as_written_and_a_damaged_one_reads_as_none() {
        let stamp = Stamp {
            seen: Seen {
                len: 5823,
                mtime: 1_795_176_000,
                mtime_ns: 123_456_789,
                inode: 4_242,
            },
            hash: hash(b"<p>hello</p>"),
            input: None,
        };
        let text = stamp.encode();
        assert_eq!(Stamp::decode(&text), Some(stamp));
        let made_from = Stamp {
            input: Some(hash(b"inputs")),
            ..stamp
        };
        assert_eq!(Stamp::decode(&made_from.encode()), Some(made_from));
        assert_eq!(
            Stamp::decode(&format!("{} 7", made_from.encode())),
            None,
            "a seventh field"
        );
        assert_eq!(text.rsplit(' ').next().unwrap().len(), 32);
        let damaged = [
            String::new(),
            "5823".to_owned(),
            text.replace(' ', "  "),
            format!("{text} 7"),
            text[..text.len() - 1].to_owned(),
            format!("{}g", &text[..text.len() - 1]),
            text.replacen("5823", "-5823", 1),
            text.replacen("5823", "58x3", 1),
            text.replacen("5823", "+5823", 1),
            text.to_uppercase(),
            format!("99999999999999999999 {}", &text[5..]),
        ];
        for text in damaged {
            assert_eq!(Stamp::decode(&text), None, "{text:?}");
        }
    }

    #[test]
    fn only_a_stamp_older_than_the_marker_is_trusted() {
        let at = |mtime, mtime_ns| Seen {
            len: 1,
            mtime,
            mtime_ns,
            inode: 7,
        };
        let stamp = |seen| Stamp {
            seen,
            hash: 1,
            input: None,
        };
        let marker = at(100, 500);
        let mut stamps = [
            Some(stamp(at(99, 900))),
            Some(stamp(at(100, 499))),
            Some(stamp(at(100, 500))),
            Some(stamp(at(100, 501))),
            Some(stamp(at(101, 0))),
            None,
        ];
        distrust_racy(stamps.iter_mut(), Some(marker));
        let kept: Vec<bool> = stamps.iter().map(Option::is_some).collect();
        assert_eq!(kept, [true, true, false, false, false, false]);
        distrust_racy(stamps.iter_mut(), None);
        assert!(
            stamps.iter().all(Option::is_none),
            "no marker's time, no trust"
        );
    }

    #[test]
    fn a_hash_reads_from_its_lower_case_digits_only() {
        for value in [
            0,
            1,
            u128::MAX,
            u128::MAX >> 1,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ] {
            assert_eq!(hex128(format!("{value:032x}").as_bytes()), Some(value));
        }
        let digits = format!("{:032x}", 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128);
        for at in [0, 15, 16, 31] {
            for byte in 0..=u8::MAX {
                let mut changed = digits.clone().into_bytes();
                changed[at] = byte;
                let expected = b"0123456789abcdef".contains(&byte);
                assert_eq!(hex128(&changed).is_some(), expected, "{byte} at {at}");
            }
        }
        assert_eq!(hex128(&digits.as_bytes()[1..]), None);
        assert_eq!(hex128(format!("{digits}0").as_bytes()), None);
    }
}
