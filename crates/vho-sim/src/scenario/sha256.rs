//! The SHA-256 digest (FIPS 180-4) of a trace file's bytes, as `sha256sum` prints it: the
//! `sha2` crate's, behind the small streaming interface the trace reader uses.

use sha2::Digest;

#[derive(Default)]
pub struct Sha256(sha2::Sha256);

impl Sha256 {
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest as 64 lowercase hex digits.
    pub fn hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        // FIPS 180-4's examples (NIST's SHA256.pdf) and `printf '' | sha256sum`.
        let hex = |d: &[u8]| {
            let mut s = Sha256::default();
            s.update(d);
            s.hex()
        };
        assert_eq!(
            hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Fed in pieces as the reader feeds lines.
        let mut s = Sha256::default();
        s.update(b"a");
        s.update(b"bc");
        assert_eq!(s.hex(), hex(b"abc"));
    }
}
