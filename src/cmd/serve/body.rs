//! What an answer carries: bytes held in memory, or a file read a chunk at a time as the
//! client takes it, so that a large file costs one chunk of memory and no thread while the
//! client is slow.

use hyper::body::{Bytes, Frame, SizeHint};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, ReadBuf};

/// How much of a file is read at a time.
const CHUNK: usize = 128 * 1024;

pub(super) enum Body {
    /// Pages (with the live-reload tag added), the script, short answers; `None` once sent.
    Bytes(Option<Bytes>),
    /// `left` more bytes of an open file. The length was taken when it was opened and sent as
    /// `Content-Length`: a file that grows meanwhile is cut there, one that shrinks ends the
    /// connection with an error (the client sees a short body, not a wrong one).
    File {
        file: tokio::fs::File,
        left: u64,
        chunk: Box<[u8]>,
    },
}

impl Body {
    pub(super) fn empty() -> Self {
        Body::Bytes(None)
    }

    pub(super) fn bytes(bytes: impl Into<Bytes>) -> Self {
        Body::Bytes(Some(bytes.into()))
    }

    pub(super) fn file(file: std::fs::File, length: u64) -> Self {
        Body::File {
            file: tokio::fs::File::from_std(file),
            left: length,
            chunk: vec![0; CHUNK].into_boxed_slice(),
        }
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.get_mut() {
            Body::Bytes(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Body::File { file, left, chunk } => {
                if *left == 0 {
                    return Poll::Ready(None);
                }
                let wanted = usize::try_from(*left).map_or(chunk.len(), |left| left.min(CHUNK));
                let mut read = ReadBuf::new(&mut chunk[..wanted]);
                ready!(Pin::new(file).poll_read(cx, &mut read))?;
                let got = read.filled();
                if got.is_empty() {
                    return Poll::Ready(Some(Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file got shorter while it was being sent",
                    ))));
                }
                *left -= got.len() as u64;
                Poll::Ready(Some(Ok(Frame::data(Bytes::copy_from_slice(got)))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Body::Bytes(bytes) => bytes.is_none(),
            Body::File { left, .. } => *left == 0,
        }
    }

    /// Exact, so that hyper sends `Content-Length` and never chunks.
    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(match self {
            Body::Bytes(bytes) => bytes.as_ref().map_or(0, |bytes| bytes.len() as u64),
            Body::File { left, .. } => *left,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::Body as _;
    use std::io::Write;

    /// Every frame of `body`, polled as hyper would, on a runtime of its own.
    fn collect(mut body: Body) -> Result<Vec<u8>, io::Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut out = Vec::new();
            while let Some(frame) =
                std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
            {
                out.extend_from_slice(&frame?.into_data().unwrap());
            }
            Ok(out)
        })
    }

    #[test]
    fn a_file_is_sent_in_chunks_up_to_the_length_it_had() {
        let mut file = tempfile::tempfile().unwrap();
        let content: Vec<u8> = (0..3 * CHUNK + 5).map(|i| i as u8).collect();
        file.write_all(&content).unwrap();
        let body = Body::file(reopen(file), content.len() as u64 - 5);
        assert_eq!(body.size_hint().exact(), Some(content.len() as u64 - 5));
        assert_eq!(collect(body).unwrap(), content[..content.len() - 5]);
    }

    #[test]
    fn a_file_that_shrank_is_an_error() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"short").unwrap();
        let body = Body::file(reopen(file), 100);
        assert_eq!(
            collect(body).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }

    /// `file`, read from its start.
    fn reopen(mut file: std::fs::File) -> std::fs::File {
        use std::io::Seek;
        file.rewind().unwrap();
        file
    }

    #[test]
    fn bytes_are_one_frame() {
        let body = Body::bytes(&b"page"[..]);
        assert_eq!(body.size_hint().exact(), Some(4));
        assert_eq!(collect(body).unwrap(), b"page");
        assert!(Body::empty().is_end_stream());
    }
}
