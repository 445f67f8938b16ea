//! Work spread over the machine's cores with scoped threads: the build's CPU-heavy steps
//! (sanitizing descriptions, rendering event pages and calendars, writing them) are
//! independent per item.

use anyhow::Result;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
}

/// `work` on every item, spread over the machine's cores, results in the items' order.
pub fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let chunk = items.len().div_ceil(threads()).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&work).collect::<Result<Vec<R>>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for part in parts {
            out.extend(part.join().expect("rendering does not panic")?);
        }
        Ok(out)
    })
}

/// `work` on every item, in no particular order, each thread taking the next few items as it
/// finishes its last ones (pages differ in cost, so fixed halves would leave a core idle).
/// Stops at the first error, which it returns.
pub fn for_each_parallel<T: Sync>(
    items: &[T],
    work: impl Fn(&T) -> Result<()> + Sync,
) -> Result<()> {
    const TAKE: usize = 16;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || -> Result<()> {
        while !failed.load(Ordering::Relaxed) {
            let start = next.fetch_add(TAKE, Ordering::Relaxed);
            if start >= items.len() {
                break;
            }
            for item in &items[start..(start + TAKE).min(items.len())] {
                if let Err(error) = work(item) {
                    failed.store(true, Ordering::Relaxed);
                    return Err(error);
                }
            }
        }
        Ok(())
    };
    let threads = threads().min(items.len().div_ceil(TAKE)).max(1);
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
        let mine = worker();
        let mut result = mine;
        for other in others {
            let theirs = other.join().expect("rendering does not panic");
            result = result.and(theirs);
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn visits_every_item_once() {
        let items: Vec<usize> = (0..1000).collect();
        let seen = Mutex::new(Vec::new());
        for_each_parallel(&items, |i| {
            seen.lock().unwrap().push(*i);
            Ok(())
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, items);
    }

    #[test]
    fn returns_the_error_and_stops_early() {
        let items: Vec<usize> = (0..100_000).collect();
        let done = AtomicUsize::new(0);
        let result = for_each_parallel(&items, |i| {
            done.fetch_add(1, Ordering::Relaxed);
            if *i == 10 {
                anyhow::bail!("item {i} failed");
            }
            Ok(())
        });
        assert_eq!(result.unwrap_err().to_string(), "item 10 failed");
        assert!(done.load(Ordering::Relaxed) < items.len());
    }
}
