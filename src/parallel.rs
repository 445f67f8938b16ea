//! Work spread over the machine's cores with scoped threads: the build's CPU-heavy steps
//! (sanitizing descriptions, rendering event pages and calendars) are independent per item.

use anyhow::Result;

/// `work` on every item, spread over the machine's cores, results in the items' order.
pub fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = items.len().div_ceil(threads).max(1);
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
