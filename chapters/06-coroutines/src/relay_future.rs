//! The lookup relay's client session as a hand-written `Future`: the state
//! machine the compiler builds from `async fn` in [`crate::relay_async`],
//! written out.
//!
//! Every `.await` in the async version is a point where the function may
//! have to stop and be resumed later. Here each such point is a variant of
//! [`State`], holding exactly what must survive until the resumption: the
//! key being looked up, the pending connect, the deadline, how much of a
//! buffer has been written. `poll` is a loop: it tries to make progress in
//! the current state; when a step completes it moves to the next state and
//! goes round again; when a step would block, it returns `Pending` and the
//! state is where the next `poll` will resume. Data that outlives every
//! step (the client socket, the directory connection, the line buffers)
//! lives in the struct, beside the state.
//!
//! Compared with Chapter 5's callbacks, the control flow is back in one
//! place (the match in `poll`) and the state is plain fields, no
//! `Rc<RefCell<..>>`. Compared with `async fn`, it is three times as long,
//! and every transition is ours to get right.
//!
//! A session can record its transitions ([`RelaySession::traced`]); a test
//! snapshots the trace of one request.
//!
//! Book: Chapter 6, "A future by hand".

use std::future::Future;
use std::io;
use std::mem;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use chapter_05::relay::{BACKEND_TIMEOUT, CLIENT_IDLE, CONNECT_TIMEOUT, Lines};
use futures::io::{AsyncRead, AsyncWrite};

use crate::net::{Connect, TcpStream};
use crate::time::{Sleep, sleep};

// ANCHOR: state
/// Where a session is: one variant per place the async version awaits.
#[derive(Debug)]
pub enum State {
    /// Waiting for the client's next line, until `idle` ends.
    ReadRequest {
        /// The idle deadline.
        idle: Sleep,
    },
    /// Opening the directory connection.
    Connect {
        /// The key to look up once connected.
        key: String,
        /// The connect in progress.
        connect: Connect,
        /// Its deadline.
        deadline: Sleep,
    },
    /// Sending `GET key` to the directory.
    SendRequest {
        /// The request line.
        request: Vec<u8>,
        /// Bytes of it written so far.
        written: usize,
    },
    /// Waiting for the directory's answer, until `deadline`.
    ReadAnswer {
        /// The answer deadline.
        deadline: Sleep,
    },
    /// Sending the reply to the client.
    SendReply {
        /// The reply line.
        reply: Vec<u8>,
        /// Bytes of it written so far.
        written: usize,
        /// End the session after it (idle, or a line too long).
        last: bool,
    },
    /// Finished.
    Done,
}

/// One client's session with the relay.
pub struct RelaySession {
    client: TcpStream,
    directory: SocketAddr,
    requests: Lines,
    backend: Option<(TcpStream, Lines)>,
    state: State,
    trace: Option<Vec<String>>,
}
// ANCHOR_END: state

impl RelaySession {
    /// A session for `client`, looking keys up in `directory`.
    pub fn new(client: TcpStream, directory: SocketAddr) -> RelaySession {
        RelaySession {
            client,
            directory,
            requests: Lines::default(),
            backend: None,
            state: State::ReadRequest {
                idle: sleep(CLIENT_IDLE),
            },
            trace: None,
        }
    }

    /// The same, recording every state transition.
    pub fn traced(client: TcpStream, directory: SocketAddr) -> RelaySession {
        RelaySession {
            trace: Some(Vec::new()),
            ..RelaySession::new(client, directory)
        }
    }

    /// The transitions so far (empty unless traced).
    pub fn trace(&self) -> &[String] {
        self.trace.as_deref().unwrap_or_default()
    }

    fn reply(text: &str, last: bool) -> State {
        State::SendReply {
            reply: text.as_bytes().to_vec(),
            written: 0,
            last,
        }
    }

    /// The state that starts looking up `key`.
    fn start_lookup(&self, key: String) -> State {
        if self.backend.is_some() {
            State::SendRequest {
                request: format!("GET {key}\n").into_bytes(),
                written: 0,
            }
        } else {
            State::Connect {
                key,
                connect: TcpStream::connect(self.directory),
                deadline: sleep(CONNECT_TIMEOUT),
            }
        }
    }
}

fn name(state: &State) -> &'static str {
    match state {
        State::ReadRequest { .. } => "ReadRequest",
        State::Connect { .. } => "Connect",
        State::SendRequest { .. } => "SendRequest",
        State::ReadAnswer { .. } => "ReadAnswer",
        State::SendReply { .. } => "SendReply",
        State::Done => "Done",
    }
}

/// Writes from `buf[*written..]` until all is written or the socket is full.
fn poll_write_all(
    stream: &mut TcpStream,
    cx: &mut Context<'_>,
    buf: &[u8],
    written: &mut usize,
) -> Poll<io::Result<()>> {
    while *written < buf.len() {
        match Pin::new(&mut *stream).poll_write(cx, &buf[*written..]) {
            Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
            Poll::Ready(Ok(n)) => *written += n,
            Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
            Poll::Pending => return Poll::Pending,
        }
    }
    Poll::Ready(Ok(()))
}

/// Reads once into `lines`: `Ready(Ok(false))` at end of stream.
fn poll_fill(
    stream: &mut TcpStream,
    cx: &mut Context<'_>,
    lines: &mut Lines,
) -> Poll<io::Result<bool>> {
    let mut buf = [0u8; 1024];
    match Pin::new(stream).poll_read(cx, &mut buf) {
        Poll::Ready(Ok(0)) => Poll::Ready(Ok(false)),
        Poll::Ready(Ok(n)) => {
            lines.push(&buf[..n]);
            Poll::Ready(Ok(true))
        }
        Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
        Poll::Pending => Poll::Pending,
    }
}

// ANCHOR: poll
// ANCHOR: poll_head
impl Future for RelaySession {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Every field is Unpin (sockets, buffers, Sleep and Connect hold no
        // self-references), so the session may be handled by &mut.
        let this = self.get_mut();
        loop {
            let next = match &mut this.state {
                State::ReadRequest { idle } => match this.requests.next_line() {
                    Some(Ok(key)) => this.start_lookup(key),
                    Some(Err(_)) => Self::reply("ERR line too long\n", true),
                    None => match poll_fill(&mut this.client, cx, &mut this.requests) {
                        Poll::Ready(Ok(true)) => continue,     // look for a line again
                        Poll::Ready(Ok(false)) => State::Done, // the client left
                        Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                        Poll::Pending => match Pin::new(idle).poll(cx) {
                            Poll::Ready(()) => Self::reply("ERR idle\n", true),
                            Poll::Pending => return Poll::Pending,
                        },
                    },
                },
                State::Connect {
                    key,
                    connect,
                    deadline,
                } => match Pin::new(connect).poll(cx) {
                    Poll::Ready(Ok(stream)) => {
                        this.backend = Some((stream, Lines::default()));
                        State::SendRequest {
                            request: format!("GET {key}\n").into_bytes(),
                            written: 0,
                        }
                    }
                    Poll::Ready(Err(_)) => Self::reply("ERR directory unreachable\n", false),
                    Poll::Pending => match Pin::new(deadline).poll(cx) {
                        // Leaving this state drops the connect: cancelled.
                        Poll::Ready(()) => Self::reply("ERR directory unreachable\n", false),
                        Poll::Pending => return Poll::Pending,
                    },
                },
                // ANCHOR_END: poll_head
                State::SendRequest { request, written } => {
                    let (backend, _) = this.backend.as_mut().expect("connected before sending");
                    match poll_write_all(backend, cx, request, written) {
                        Poll::Ready(Ok(())) => State::ReadAnswer {
                            deadline: sleep(BACKEND_TIMEOUT),
                        },
                        Poll::Ready(Err(_)) => {
                            this.backend = None;
                            Self::reply("ERR directory connection lost\n", false)
                        }
                        Poll::Pending => return Poll::Pending,
                    }
                }
                State::ReadAnswer { deadline } => {
                    let (backend, answers) =
                        this.backend.as_mut().expect("connected before reading");
                    match answers.next_line() {
                        Some(Ok(answer)) => match answer.split_once(' ').unwrap_or((&answer, "")) {
                            ("VALUE", value) => Self::reply(&format!("OK {value}\n"), false),
                            ("MISSING", _) => Self::reply("NOTFOUND\n", false),
                            _ => {
                                this.backend = None;
                                Self::reply("ERR directory said something malformed\n", false)
                            }
                        },
                        Some(Err(_)) => {
                            this.backend = None;
                            Self::reply("ERR directory said something malformed\n", false)
                        }
                        None => match poll_fill(backend, cx, answers) {
                            Poll::Ready(Ok(true)) => continue,
                            Poll::Ready(Ok(false) | Err(_)) => {
                                this.backend = None;
                                Self::reply("ERR directory connection lost\n", false)
                            }
                            Poll::Pending => match Pin::new(deadline).poll(cx) {
                                Poll::Ready(()) => {
                                    this.backend = None;
                                    Self::reply("ERR directory timed out\n", false)
                                }
                                Poll::Pending => return Poll::Pending,
                            },
                        },
                    }
                }
                State::SendReply {
                    reply,
                    written,
                    last,
                } => match poll_write_all(&mut this.client, cx, reply, written) {
                    Poll::Ready(Ok(())) if *last => State::Done,
                    Poll::Ready(Ok(())) => State::ReadRequest {
                        idle: sleep(CLIENT_IDLE),
                    },
                    Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                    Poll::Pending => return Poll::Pending,
                },
                // ANCHOR: poll_tail
                State::Done => return Poll::Ready(Ok(())),
            };
            let from = mem::replace(&mut this.state, next);
            if let Some(trace) = &mut this.trace {
                trace.push(format!("{} -> {}", name(&from), name(&this.state)));
            }
        }
    }
}
// ANCHOR_END: poll_tail
// ANCHOR_END: poll

/// Accepts clients forever, a hand-written session future each.
pub async fn serve(listener: crate::net::TcpListener, directory: SocketAddr) -> io::Result<()> {
    loop {
        let (client, _) = listener.accept().await?;
        crate::executor::spawn(async move {
            let _ = RelaySession::new(client, directory).await;
        });
    }
}
