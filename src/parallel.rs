//! Work spread over the machine's cores with scoped threads: the build's CPU-heavy steps
//! (sanitizing descriptions, rendering event pages and calendars, writing them) are
//! independent per item.

use anyhow::Result;
use std::sync::Mutex;
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
    let parts = Mutex::new(Vec::new());
    share_out(items, |start, run| {
        let results = run.iter().map(&work).collect::<Result<Vec<R>>>()?;
        parts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((start, results));
        Ok(())
    })?;
    let mut parts = parts.into_inner().unwrap_or_else(|e| e.into_inner());
    parts.sort_unstable_by_key(|(start, _)| *start);
    Ok(parts.into_iter().flat_map(|(_, results)| results).collect())
}

/// `work` on every item, in no particular order. Stops at the first error, which it returns.
pub fn for_each_parallel<T: Sync>(
    items: &[T],
    work: impl Fn(&T) -> Result<()> + Sync,
) -> Result<()> {
    share_out(items, |_, run| run.iter().try_for_each(&work))
}

/// Hands the items out in short runs, each thread taking the next run as it finishes its last:
/// items differ in cost (an event with a long description, a large page), and with fixed
/// halves a thread whose half is cheaper would wait for the other. `work` gets each run with
/// the index of its first item. After an error no new run starts; the first error a thread
/// meets is returned.
fn share_out<T: Sync>(items: &[T], work: impl Fn(usize, &[T]) -> Result<()> + Sync) -> Result<()> {
    const TAKE: usize = 16;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || -> Result<()> {
        while !failed.load(Ordering::Relaxed) {
            let start = next.fetch_add(TAKE, Ordering::Relaxed);
            if start >= items.len() {
                break;
            }
            if let Err(error) = work(start, &items[start..(start + TAKE).min(items.len())]) {
                failed.store(true, Ordering::Relaxed);
                return Err(error);
            }
        }
        Ok(())
    };
    let threads = threads().min(items.len().div_ceil(TAKE)).max(1);
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
        let mut result = worker();
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

    #[test]
    fn results_keep_the_items_order_however_the_work_is_shared() {
        // Uneven costs, so the threads take runs in an order of their own.
        let items: Vec<u64> = (0..2000).collect();
        let results = in_parallel(&items, |i| {
            if i % 97 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok(i * 3)
        })
        .unwrap();
        assert_eq!(results, items.iter().map(|i| i * 3).collect::<Vec<_>>());
        assert!(
            in_parallel(&Vec::<u64>::new(), |i| Ok(*i))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn in_parallel_returns_an_error() {
        let items: Vec<usize> = (0..500).collect();
        let result = in_parallel(&items, |i| {
            if *i == 321 {
                anyhow::bail!("item {i} failed");
            }
            Ok(*i)
        });
        assert_eq!(result.unwrap_err().to_string(), "item 321 failed");
    }
}
