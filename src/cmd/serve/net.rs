//! Listening on 127.0.0.1 and carrying each connection: HTTP/1.1 by hyper, on the one thread
//! of a tokio runtime, with limits that keep slow, stalled and greedy clients from holding up
//! anyone else's page load.
//!
//! What holds, and why:
//!
//! - A connection is a task, not a thread: an idle one costs its socket and a few kilobytes.
//!   At most [`MAX_CONNECTIONS`] are open at once. When a new one comes with every place
//!   taken, the open connections are told to make room: those waiting for a request (kept
//!   alive, or never used) close at once, the others after their current answer. The new
//!   one waits in the listen backlog (the kernel completes its handshake) until a place is
//!   free, which is at once unless every connection is busy; then the limits below free one.
//! - A request head must arrive whole within [`HEAD_TIMEOUT`] of the server starting to wait
//!   for it. That covers a connection that never sends anything, a head trickled or stalled
//!   half way, and a kept-alive connection with no next request. A head larger than
//!   [`MAX_HEAD`] is refused (431) without reading more of it.
//! - An answer the client takes nothing of for [`WRITE_TIMEOUT`] is abandoned and its
//!   connection closed ([`Stalls`]), along with any requests it pipelined. A client that keeps
//!   reading, however slowly, keeps its connection, and nothing else.
//! - Files are read a chunk at a time as the client takes them (`body::Body::File`); the file
//!   system work (looking a path up, reading a chunk) runs on tokio's pool of at most
//!   [`FILE_THREADS`] threads, each job short.
//! - A live-reload poll waits as a task, for at most `live::POLL_WAIT`, on the connection it
//!   came on.
//! - A request that carries a body gets its answer with `Connection: close` (see
//!   `super::answer`): the server never wants one, and so never waits for one to arrive.

use super::body::Body;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::time::Sleep;

/// Far more than the few connections a browser opens per tab, few enough that their buffers
/// stay small (a connection's read buffer is at most [`MAX_HEAD`]).
const MAX_CONNECTIONS: usize = 512;
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// A request head larger than this is refused by hyper (431, or 414 for a URL over 64 KiB)
/// before it is looked at. It leaves room for `super::MAX_HEADERS` of headers and a URL of
/// `super::MAX_URL`, which `super::answer` refuses with the same codes.
const MAX_HEAD: usize = 128 * 1024;
/// Threads for file system work; they end when idle.
const FILE_THREADS: usize = 8;

/// The runtime `serve` answers on: this thread for the connections, a few more for files.
pub(super) fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(FILE_THREADS)
        .thread_name("vatcar-site-serve")
        .build()
}

/// A listener on 127.0.0.1:`port` (any free port for 0), for [`accept`].
pub(super) fn listen(port: u16) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    // As std's `TcpListener::bind` does on Unix, so that a restart can reuse the port at once.
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&address.into())?;
    socket.listen(1024)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// Accepts connections on `listener` for as long as the process runs, answering each
/// request with `answer`. Runs inside [`runtime`].
pub(super) async fn accept<A, F>(listener: std::net::TcpListener, answer: A) -> io::Result<()>
where
    A: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let listener = TcpListener::from_std(listener)?;
    accept_at_most(MAX_CONNECTIONS, HEAD_TIMEOUT, listener, answer).await;
    Ok(())
}

/// [`accept`] with at most `most` connections open, each given `head_timeout` for a request.
async fn accept_at_most<A, F>(most: usize, head_timeout: Duration, listener: TcpListener, answer: A)
where
    A: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let open = Arc::new(Semaphore::new(most));
    // Counts the times a new connection found every place taken. Each connection watches it
    // from its accepting on, so that it hears of a later time even before it first runs.
    let crowded = watch::Sender::new(0u64);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(head_timeout)
        .max_buf_size(MAX_HEAD);
    let http = Arc::new(http);
    loop {
        let place = match Arc::clone(&open).try_acquire_owned() {
            Ok(place) => place,
            Err(_) => {
                crowded.send_modify(|times| *times += 1);
                Arc::clone(&open)
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed")
            }
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors, most likely: give open connections time to end
                // rather than spinning on the error.
                log::warn!("could not accept a connection: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Small answers go out at once rather than waiting for more to fill a packet.
        let _ = stream.set_nodelay(true);
        let answer = answer.clone();
        let http = Arc::clone(&http);
        let mut crowded = crowded.subscribe();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = answer.clone();
                async move { Ok::<_, Infallible>(answer(request).await) }
            });
            let io = TokioIo::new(Stalls::new(stream, WRITE_TIMEOUT));
            let mut connection = pin!(http.serve_connection(io, service));
            let mut make_room = pin!(crowded.changed());
            let mut leaving = false;
            // Errors are the client's doing (a bad head, a timeout, a reset) and end only
            // its connection.
            let _ = std::future::poll_fn(|cx| {
                // The connection first, so that a request already sent is read, and answered.
                let done = connection.as_mut().poll(cx);
                if done.is_pending() && !leaving && make_room.as_mut().poll(cx).is_ready() {
                    leaving = true;
                    // Closes at once if waiting for a request, else after the answer.
                    connection.as_mut().graceful_shutdown();
                    return connection.as_mut().poll(cx);
                }
                done
            })
            .await;
            drop(place);
        });
    }
}

/// A connection whose writes fail once the client has taken nothing for [`WRITE_TIMEOUT`].
/// hyper has no such limit of its own, and without it a client that stops reading would keep
/// its connection, and its place among [`MAX_CONNECTIONS`], for good.
struct Stalls {
    stream: TcpStream,
    limit: Duration,
    /// Running while a write waits for the client; reset by any progress.
    since: Pin<Box<Sleep>>,
    waiting: bool,
}

impl Stalls {
    fn new(stream: TcpStream, limit: Duration) -> Self {
        Self {
            stream,
            limit,
            since: Box::pin(tokio::time::sleep(limit)),
            waiting: false,
        }
    }

    /// `result` of a write, or a timeout once writes have been waiting too long.
    fn check<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if result.is_ready() {
            self.waiting = false;
            return result;
        }
        if !self.waiting {
            self.waiting = true;
            let deadline = tokio::time::Instant::now() + self.limit;
            self.since.as_mut().reset(deadline);
        }
        match self.since.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped taking the answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for Stalls {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.check(cx, result)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.check(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_flush(cx);
        this.check(cx, result)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.check(cx, result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .unwrap()
    }

    #[test]
    fn a_write_the_client_never_takes_times_out() {
        runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            // Connected, and never read from.
            let _client = TcpStream::connect(listener.local_addr().unwrap())
                .await
                .unwrap();
            let (accepted, _) = listener.accept().await.unwrap();
            let mut stalls = Stalls::new(accepted, Duration::from_millis(100));
            let chunk = vec![0u8; 1 << 20];
            let error = loop {
                let written =
                    std::future::poll_fn(|cx| Pin::new(&mut stalls).poll_write(cx, &chunk)).await;
                if let Err(error) = written {
                    break error;
                }
            };
            assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        });
    }

    #[test]
    fn with_every_place_taken_idle_connections_make_room_for_a_new_one() {
        const MOST: usize = 4;
        runtime().block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            // Connections that never send anything are kept for an hour: only making room
            // can free a place in time.
            let hour = Duration::from_secs(3600);
            tokio::spawn(accept_at_most(MOST, hour, listener, |_| async {
                Response::new(Body::bytes("answered"))
            }));
            // The clients are plain sockets on a thread of their own, while the server runs
            // on this one.
            let clients = tokio::task::spawn_blocking(move || {
                let patient = |stream: &std::net::TcpStream| {
                    let patience = Some(Duration::from_secs(60));
                    stream.set_read_timeout(patience).unwrap();
                };
                // Twice as many as there are places, all silent.
                let idle: Vec<_> = (0..2 * MOST)
                    .map(|_| std::net::TcpStream::connect(address).unwrap())
                    .collect();
                let mut page = std::net::TcpStream::connect(address).unwrap();
                patient(&page);
                page.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .unwrap();
                let mut answer = String::new();
                page.read_to_string(&mut answer).unwrap();
                // The ones that made room were closed without an answer.
                let closed = idle
                    .into_iter()
                    .filter(|mut stream| {
                        stream.set_nonblocking(true).unwrap();
                        matches!(stream.read(&mut [0u8; 1]), Ok(0))
                    })
                    .count();
                (answer, closed)
            });
            let (answer, closed) = clients.await.unwrap();
            assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
            assert!(answer.ends_with("\r\n\r\nanswered"), "{answer}");
            assert!(closed >= MOST, "{closed} idle connections closed");
        });
    }
}
