//! Stopping: a signal asks every publication under way to stop before its swap, and one that
//! has begun its swap to finish.

use anyhow::Result;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// A publication stopped by a signal before the output folder changed.
#[derive(Debug, thiserror::Error)]
#[error("stopped by signal {0} before the output folder changed; it is as it was")]
pub struct Interrupted(pub i32);

/// The signal that asked this process to stop, 0 for none.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Publications under way (staging begun, not yet dropped).
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// Asks every publication under way to stop: one that has not begun its swap removes what it
/// staged and returns [`Interrupted`]; one that has, finishes. Returns whether any is under
/// way (if none, the caller may exit at once: nothing is half-written).
pub fn interrupt(signal: i32) -> bool {
    STOP_SIGNAL.store(signal, Ordering::SeqCst);
    ACTIVE.load(Ordering::SeqCst) > 0
}

/// The signal [`interrupt`] was given, if any.
pub fn interrupted() -> Option<i32> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

pub(super) fn check_interrupt() -> Result<()> {
    match interrupted() {
        Some(signal) => Err(Interrupted(signal).into()),
        None => Ok(()),
    }
}

/// Decrements [`ACTIVE`] however a publication ends.
pub(super) struct Active;

impl Active {
    pub(super) fn enter() -> Active {
        ACTIVE.fetch_add(1, Ordering::SeqCst);
        Active
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::SeqCst);
    }
}
