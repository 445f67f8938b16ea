//! Listening on 127.0.0.1 and carrying each connection: HTTP/1.1 by hyper, on the one thread
//! of a tokio runtime, with limits that keep slow, stalled and greedy clients from holding up
//! anyone else's page load.
//!
//! What holds, and why:
//!
//! - A connection is a task, not a thread: an idle one costs its socket and a few kilobytes.
//!   At most [`MAX_CONNECTIONS`] are open at once; past that, new ones wait in the listen
//!   backlog (the kernel completes their handshake) until one closes, and the limits below
//!   close idle and stalled ones, so they do not wait long.
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
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
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
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD);
    let http = Arc::new(http);
    loop {
        let place = Arc::clone(&open)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
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
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = answer.clone();
                async move { Ok::<_, Infallible>(answer(request).await) }
            });
            // Errors are the client's doing (a bad head, a timeout, a reset) and end only
            // its connection.
            let _ = http
                .serve_connection(TokioIo::new(Stalls::new(stream, WRITE_TIMEOUT)), service)
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
    use tokio::io::AsyncWriteExt;

    #[test]
    fn a_write_the_client_never_takes_times_out() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            // Connected, and never read from.
            let _client = TcpStream::connect(listener.local_addr().unwrap())
                .await
                .unwrap();
            let (accepted, _) = listener.accept().await.unwrap();
            let mut stalls = Stalls::new(accepted, Duration::from_millis(100));
            let chunk = vec![0u8; 1 << 20];
            let error = loop {
                if let Err(error) = stalls.write_all(&chunk).await {
                    break error;
                }
            };
            assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        });
    }
}
