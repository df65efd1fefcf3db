//! The hosts' captures, written to their files by a thread of their own: the loop only appends
//! each record to a buffer in memory, and hands the buffer over when it is full.
//!
//! Measured on this machine at 0.92 Gb/s (`perf record -a -g` over the loop of
//! `benches/emu_accuracy.py`'s throughput run, before this): the loop spent 56 % of its time in
//! `write(2)` to the two capture files, nearly all of it in ext4's copy into the page cache,
//! more than in the hosts' stacks, while the other core was 40 % idle. That copy is slow here
//! because every page of a fresh page cache is memory the VM's host must first provide (`dd`
//! of 1000 MB into a new file: 425 MB/s; with O_DIRECT: 2.2 GB/s): so the writer writes whole
//! aligned buffers with O_DIRECT (open(2)), the same few buffers over and over, and falls back
//! to ordinary writes where the file system refuses it and for the last, partial buffer.
//!
//! The records still go out in the loop's order, whole and unchanged; a full queue of buffers
//! makes the loop wait (and that wait shows in its lateness), so a slow disk cannot grow
//! memory without bound.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, Sender, SyncSender, TrySendError};
use std::thread::JoinHandle;

/// Bytes per buffer handed over. Open: our choice, large against a write(2) call's cost,
/// small against memory (1 MiB holds ~700 full-size records).
pub const CHUNK: usize = 1 << 20;
/// Buffers queued for the writer at most before the loop waits. Open: our choice, 128 MiB per
/// capture, a second of a 1 Gb/s link's records, to ride out a disk's stalls while other jobs
/// write; allocated only as the writer falls behind.
pub const QUEUED: usize = 128;
/// O_DIRECT's alignment of buffer, length and file offset: the page size, a multiple of any
/// device's logical block size (open(2), "O_DIRECT").
const ALIGN: usize = 4096;

/// A buffer of [`CHUNK`] bytes whose start is [`ALIGN`]-aligned (inside a larger `Vec`, whose
/// heap memory does not move with it).
struct Chunk {
    mem: Vec<u8>,
    off: usize,
    len: usize,
}

impl Chunk {
    fn new() -> Chunk {
        let mem = vec![0u8; CHUNK + ALIGN];
        let off = mem.as_ptr().align_offset(ALIGN);
        Chunk { mem, off, len: 0 }
    }

    /// Copies as much of `b` as fits; how much.
    fn fill(&mut self, b: &[u8]) -> usize {
        let n = (CHUNK - self.len).min(b.len());
        let at = self.off + self.len;
        self.mem[at..at + n].copy_from_slice(&b[..n]);
        self.len += n;
        n
    }

    fn bytes(&self) -> &[u8] {
        &self.mem[self.off..self.off + self.len]
    }
}

/// The capture file as the writer thread writes it: with O_DIRECT while every write so far was
/// a whole aligned buffer.
struct Direct {
    file: std::fs::File,
    direct: bool,
}

impl Direct {
    fn write(&mut self, b: &[u8]) -> std::io::Result<()> {
        if self.direct && !b.len().is_multiple_of(ALIGN) {
            // The aligned part directly, the rest (the file's end) through the page cache.
            let cut = b.len() / ALIGN * ALIGN;
            self.write(&b[..cut])?;
            self.buffered()?;
            return self.file.write_all(&b[cut..]);
        }
        match self.file.write_all(b) {
            Err(e) if self.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                // The file system takes no O_DIRECT (open(2): EINVAL).
                self.buffered()?;
                self.file.write_all(b)
            }
            r => r,
        }
    }

    /// O_DIRECT off for the rest of the file (fcntl(2) F_SETFL).
    fn buffered(&mut self) -> std::io::Result<()> {
        if !self.direct {
            return Ok(());
        }
        self.direct = false;
        let fd = self.file.as_raw_fd();
        // SAFETY: F_GETFL/F_SETFL on a descriptor we own.
        let r = unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_DIRECT)
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

enum Msg {
    Data(Chunk),
    /// Write out everything sent before, then answer with the first error, if any.
    Flush(SyncSender<Option<std::io::Error>>),
}

/// A `Write` whose bytes reach its file through a writer thread, in order.
pub struct OffThread {
    buf: Chunk,
    tx: Option<SyncSender<Msg>>,
    /// Buffers the writer is done with, for reuse (their memory already mapped).
    free: Receiver<Chunk>,
    thread: Option<JoinHandle<()>>,
    /// How long the loop waited for room in the queue.
    waited: std::time::Duration,
    /// Raised by the writer at its first error (a full disk): the run stops at once.
    failed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl OffThread {
    /// Creates (or truncates) the file at `path` and starts its writer thread (named
    /// `vho-capture`).
    pub fn create(path: &Path) -> std::io::Result<OffThread> {
        let open = |flags| {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .custom_flags(flags)
                .open(path)
        };
        let mut out = match open(libc::O_DIRECT) {
            Ok(file) => Direct { file, direct: true },
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Direct {
                file: open(0)?,
                direct: false,
            },
            Err(e) => return Err(e),
        };
        let failed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let raise = failed.clone();
        let (tx, rx) = sync_channel::<Msg>(QUEUED);
        let (free_tx, free): (Sender<Chunk>, _) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("vho-capture".into())
            .spawn(move || {
                // After the first error nothing more is written (the capture is broken); the
                // error goes to the next flush.
                let (mut error, mut broken) = (None, false);
                for msg in rx {
                    match msg {
                        Msg::Data(mut b) => {
                            if !broken {
                                if let Err(e) = out.write(b.bytes()) {
                                    (error, broken) = (Some(e), true);
                                    raise.store(true, std::sync::atomic::Ordering::Relaxed);
                                }
                            }
                            b.len = 0;
                            let _ = free_tx.send(b);
                        }
                        Msg::Flush(reply) => {
                            let _ = reply.send(error.take());
                        }
                    }
                }
            })?;
        Ok(OffThread {
            buf: Chunk::new(),
            tx: Some(tx),
            free,
            thread: Some(thread),
            waited: std::time::Duration::ZERO,
            failed,
        })
    }

    /// Whether a write of the writer failed (its error comes with the next flush).
    pub fn failed(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn hand_over(&mut self) -> std::io::Result<()> {
        if self.buf.len == 0 {
            return Ok(());
        }
        let next = self.free.try_recv().unwrap_or_else(|_| Chunk::new());
        let full = std::mem::replace(&mut self.buf, next);
        let tx = self.sender()?.clone();
        match tx.try_send(Msg::Data(full)) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(msg)) => {
                let t0 = std::time::Instant::now();
                let r = tx.send(msg).map_err(|_| stopped());
                self.waited += t0.elapsed();
                r
            }
            Err(TrySendError::Disconnected(_)) => Err(stopped()),
        }
    }

    /// How long writes waited for the writer (its queue full).
    pub fn waited(&self) -> std::time::Duration {
        self.waited
    }

    fn sender(&self) -> std::io::Result<&SyncSender<Msg>> {
        self.tx.as_ref().ok_or_else(stopped)
    }
}

fn stopped() -> std::io::Error {
    std::io::Error::other("the capture's writer thread stopped")
}

impl Write for OffThread {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let mut rest = b;
        while !rest.is_empty() {
            let n = self.buf.fill(rest);
            rest = &rest[n..];
            if self.buf.len == CHUNK {
                self.hand_over()?;
            }
        }
        Ok(b.len())
    }

    /// Hands over what is buffered and waits until the writer has written everything: the
    /// first error of the writes, if any.
    fn flush(&mut self) -> std::io::Result<()> {
        self.hand_over()?;
        let (reply, answer) = sync_channel(1);
        self.sender()?
            .send(Msg::Flush(reply))
            .map_err(|_| stopped())?;
        match answer.recv() {
            Ok(None) => Ok(()),
            Ok(Some(e)) => Err(e),
            Err(_) => Err(stopped()),
        }
    }
}

impl Drop for OffThread {
    fn drop(&mut self) {
        // What was never flushed is still written: the writer drains its queue, then ends.
        let _ = self.hand_over();
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_fails_raises_the_flag_at_once_and_the_flush_reports_it() {
        // /dev/full: every write fails with ENOSPC, as on a full disk.
        let mut w = OffThread::create(Path::new("/dev/full")).unwrap();
        assert!(!w.failed());
        w.write_all(&vec![1u8; CHUNK]).unwrap(); // one whole buffer, handed over
        let t0 = std::time::Instant::now();
        while !w.failed() && t0.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(w.failed(), "the flag is raised before any flush");
        let e = w.flush().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
    }

    #[test]
    fn bytes_reach_the_file_in_order_across_buffers_and_flush_waits_for_them() {
        let dir = std::env::temp_dir().join(format!("vho-capture-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.bin");
        let mut w = OffThread::create(&path).unwrap();
        let mut want = Vec::new();
        // Records of varying sizes, over three buffers' worth.
        for i in 0..3 * CHUNK / 1000 {
            let rec: Vec<u8> = (0..(i % 1500) + 1).map(|k| (i + k) as u8).collect();
            w.write_all(&rec).unwrap();
            want.extend_from_slice(&rec);
        }
        w.flush().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), want);
        // After a flush the buffers are reused; more bytes, then dropping writes them too.
        w.write_all(b"tail").unwrap();
        drop(w);
        want.extend_from_slice(b"tail");
        assert_eq!(std::fs::read(&path).unwrap(), want);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
