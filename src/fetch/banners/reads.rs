//! Banners read from their hosts: a few at a time ([`AT_ONCE`]), each host asked once until
//! it has answered (so that one that cannot be reached costs one try, not one a banner), each
//! body copied on the build's cores as it arrives, and everything ended by [`DEADLINE`].

use super::cache;
use super::{
    AT_ONCE, Arrived, DEADLINE, MAX_BYTES, Observer, TIMEOUT, Unserved, WHAT, copies_of_body,
    refusal,
};
use crate::fetch::public::{PublicClient, Reader};
use crate::secret::{Secrets, shown_url};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;
use url::Url;

/// Each address read, a few at a time, and each body copied on the build's cores as soon as
/// it arrives (or, with `keep_bodies`, handed back as read); the results in the addresses'
/// order.
pub(super) fn read_and_copy(
    addresses: &[Url],
    known: HashSet<String>,
    observer: &dyn Observer,
    keep_bodies: bool,
) -> Vec<Arrived> {
    let reader = match Reader::new(WHAT, MAX_BYTES, TIMEOUT) {
        Ok(reader) => reader,
        Err(reason) => {
            return (addresses.iter())
                .map(|_| Arrived::Failed {
                    reason: reason.clone(),
                    remembered: false,
                })
                .collect();
        }
    };
    let deadline = Instant::now() + DEADLINE;
    let shared = Arc::new(Shared {
        known,
        keep_bodies,
        claimed: Mutex::default(),
        hosts: Mutex::default(),
    });
    let (sender, receiver) = mpsc::channel();
    let slots = Arc::new(tokio::sync::Semaphore::new(AT_ONCE));
    let mut arrived: Vec<Option<Arrived>> = addresses.iter().map(|_| None).collect();
    // Each outcome taken as it comes (for the observer), while the reads go on beside.
    std::thread::scope(|scope| {
        scope.spawn(|| read_all(&reader, addresses, &shared, sender, deadline, slots));
        for (n, result) in receiver {
            arrived[n] = Some(result);
            observer.copied();
        }
    });
    arrived
        .into_iter()
        .map(|result| {
            result.unwrap_or(Arrived::Failed {
                reason: "its copies were not made (a decoder stopped)".to_owned(),
                remembered: false,
            })
        })
        .collect()
}

/// Every address read by its own task, [`AT_ONCE`] at a time; each outcome sent by `sender`.
fn read_all(
    reader: &Reader,
    addresses: &[Url],
    shared: &Arc<Shared>,
    sender: mpsc::Sender<(usize, Arrived)>,
    deadline: Instant,
    slots: Arc<tokio::sync::Semaphore>,
) {
    reader.runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for (n, address) in addresses.iter().enumerate() {
            let job = Job {
                n,
                address: address.clone(),
                client: reader.client.clone(),
                shared: shared.clone(),
                sender: sender.clone(),
                deadline,
            };
            tasks.spawn(job.run(slots.clone()));
        }
        while tasks.join_next().await.is_some() {}
    });
}

/// What the reads of one build share.
struct Shared {
    /// Sources the cache has copies of.
    known: HashSet<String>,
    /// Bodies are handed back as read ([`Arrived::Read`]), not copied.
    keep_bodies: bool,
    /// Sources this build is copying (the first address to read them copies them).
    claimed: Mutex<HashSet<String>>,
    /// Each host's gate: one request at a time until the host has answered once, so that a
    /// host that cannot be reached costs one try, not one a banner.
    hosts: Mutex<HashMap<String, Arc<Host>>>,
}

/// What a build knows of one host.
struct Host {
    /// One permit until the host answers; [`AT_ONCE`] more once it has.
    gate: tokio::sync::Semaphore,
    /// Why it could not be reached, once it could not.
    unreachable: Mutex<Option<String>>,
    /// Whether it has answered, and its gate is open.
    answered: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn host(&self, name: &str) -> Arc<Host> {
        let mut hosts = self.hosts.lock().expect("not poisoned");
        (hosts.entry(name.to_owned()))
            .or_insert_with(|| {
                Arc::new(Host {
                    gate: tokio::sync::Semaphore::new(1),
                    unreachable: Mutex::new(None),
                    answered: false.into(),
                })
            })
            .clone()
    }
}

/// One address to read, and where its result goes.
struct Job {
    n: usize,
    address: Url,
    client: PublicClient,
    shared: Arc<Shared>,
    sender: mpsc::Sender<(usize, Arrived)>,
    deadline: Instant,
}

impl Job {
    /// Reads the address and hands its body to a core to copy, holding `slot` until the copies
    /// are made: at most [`AT_ONCE`] bodies are held at once.
    async fn run(self, slots: Arc<tokio::sync::Semaphore>) {
        let failed = |reason: String, remembered: bool| Arrived::Failed { reason, remembered };
        let host = self
            .shared
            .host(self.address.host_str().unwrap_or_default());
        let passed = host
            .gate
            .acquire()
            .await
            .expect("the gates are never closed");
        let slot = slots
            .acquire_owned()
            .await
            .expect("the slots are never closed");
        let unreachable = host.unreachable.lock().expect("not poisoned").clone();
        let arrived = if let Some(reason) = unreachable {
            failed(reason, true)
        } else if Instant::now() > self.deadline {
            failed(late(), false)
        } else {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let read = tokio::time::timeout(left, self.client.get(&self.address)).await;
            match &read {
                Ok(Err(failure)) if failure.host_unreachable => {
                    let path = &self.address[url::Position::BeforePath..];
                    *host.unreachable.lock().expect("not poisoned") = Some(format!(
                        "not asked: its host could not be reached for {path}"
                    ));
                }
                // It answered (or is slow): the others may be read beside one another.
                _ => {
                    if !host
                        .answered
                        .swap(true, std::sync::atomic::Ordering::Relaxed)
                    {
                        host.gate.add_permits(AT_ONCE);
                    }
                }
            }
            drop(passed);
            match read {
                Err(_) => failed(late(), false),
                Ok(Ok(None)) => failed(format!("{} answered 404", shown_url(&self.address)), true),
                Ok(Err(failure)) => failed(failure.reason, true),
                Ok(Ok(Some(body))) if self.shared.keep_bodies => Arrived::Read(body),
                Ok(Ok(Some(body))) => {
                    log::debug!(
                        "banner {}: read, {} bytes",
                        shown_url(&self.address),
                        body.len()
                    );
                    let source = cache::sha256_hex(&body);
                    let first = !self.shared.known.contains(&source)
                        && (self.shared.claimed.lock().expect("not poisoned"))
                            .insert(source.clone());
                    if !first {
                        Arrived::Same(source)
                    } else {
                        let (n, sender, deadline) = (self.n, self.sender, self.deadline);
                        rayon::spawn(move || {
                            let made = if Instant::now() > deadline {
                                Err(late())
                            } else {
                                copies_of_body(&body)
                            };
                            drop(body);
                            drop(slot);
                            let _ = sender.send((n, Arrived::Made(source, made)));
                        });
                        return;
                    }
                }
            }
        };
        if let Arrived::Failed { reason, .. } = &arrived {
            log::debug!("banner {}: {reason}", shown_url(&self.address));
        }
        drop(slot);
        let _ = self.sender.send((self.n, arrived));
    }
}

/// The bytes at each address, read as the build reads banners (a few at a time, each host
/// asked once until it answers, within the same limits and deadline), for a snapshot to keep; and why each one not read was not. An
/// address that holds one of `secrets` is not read.
pub fn read_for_snapshot(
    addresses: &[Url],
    secrets: &Secrets,
) -> (Vec<(String, Vec<u8>)>, Vec<Unserved>) {
    let mut unserved = Vec::new();
    let unique: BTreeSet<&Url> = addresses.iter().collect();
    let mut to_read = Vec::new();
    for address in unique {
        match refusal(address, secrets) {
            Some(reason) => unserved.push(Unserved {
                address: address.clone(),
                reason,
            }),
            None => to_read.push(address.clone()),
        }
    }
    let mut saved = Vec::new();
    let read = read_and_copy(&to_read, HashSet::new(), &(), true);
    for (address, arrived) in to_read.into_iter().zip(read) {
        match arrived {
            Arrived::Read(body) => saved.push((address.as_str().to_owned(), body)),
            Arrived::Failed { reason, .. } => unserved.push(Unserved { address, reason }),
            Arrived::Made(..) | Arrived::Same(_) => {}
        }
    }
    unserved.sort_by(|a, b| a.address.cmp(&b.address));
    (saved, unserved)
}

fn late() -> String {
    format!(
        "it was not served: reading and copying the banners took more than {} s together",
        DEADLINE.as_secs()
    )
}
