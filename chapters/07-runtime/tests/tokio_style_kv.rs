//! A program written the way a Tokio user writes one, with `tokio` replaced
//! by `rt` in its paths and nothing else changed: a line-based key-value
//! server (`SET key value`, `GET key`, `DEL key`), one task per connection,
//! the connection split into a line reader and a writer, and clients that
//! talk to it. That it compiles and passes is the test of `rt::io`'s
//! Tokio-shaped names (`AsyncBufReadExt::lines`, `next_line`,
//! `AsyncWriteExt::write_all`, `shutdown`, `BufReader`).
#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use rt::net::{TcpListener, TcpStream};
use rt::sync::Mutex;
use std::collections::HashMap;
use std::io;
use std::sync::Arc;
use std::time::Duration;

type Db = Arc<Mutex<HashMap<String, String>>>;

/// Accepts connections until the listener fails, one task each.
async fn serve(listener: TcpListener, db: Db) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let db = db.clone();
        rt::spawn(async move {
            if let Err(e) = handle(stream, db).await {
                eprintln!("connection failed: {e}");
            }
        });
    }
}

/// Answers one line per command until the client shuts its side down.
async fn handle(stream: TcpStream, db: Db) -> io::Result<()> {
    let (reader, mut writer) = stream.into_split();
    let mut lines = BufReader::new(reader).lines();
    while let Some(line) = lines.next_line().await? {
        let mut words = line.splitn(3, ' ');
        let reply = match (words.next(), words.next(), words.next()) {
            (Some("SET"), Some(key), Some(value)) => {
                db.lock().await.insert(key.to_string(), value.to_string());
                "OK".to_string()
            }
            (Some("GET"), Some(key), None) => match db.lock().await.get(key) {
                Some(value) => format!("VALUE {value}"),
                None => "NIL".to_string(),
            },
            (Some("DEL"), Some(key), None) => match db.lock().await.remove(key) {
                Some(_) => "OK".to_string(),
                None => "NIL".to_string(),
            },
            _ => format!("ERR cannot parse {line:?}"),
        };
        writer.write_all(format!("{reply}\n").as_bytes()).await?;
    }
    writer.shutdown().await
}

/// A client: sends each command, reads each reply.
struct Client {
    lines: rt::io::Lines<BufReader<rt::net::tcp::OwnedReadHalf>>,
    writer: rt::net::tcp::OwnedWriteHalf,
}

impl Client {
    async fn connect(addr: std::net::SocketAddr) -> io::Result<Client> {
        let (reader, writer) = TcpStream::connect(addr).await?.into_split();
        Ok(Client {
            lines: BufReader::new(reader).lines(),
            writer,
        })
    }

    async fn ask(&mut self, command: &str) -> io::Result<String> {
        self.writer
            .write_all(format!("{command}\r\n").as_bytes())
            .await?;
        match self.lines.next_line().await? {
            Some(reply) => Ok(reply),
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_share_one_store_through_the_server() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let db = Db::default();
    let server = rt::spawn(serve(listener, db.clone()));

    let mut alice = Client::connect(addr).await.unwrap();
    let mut bob = Client::connect(addr).await.unwrap();
    assert_eq!(alice.ask("GET colour").await.unwrap(), "NIL");
    assert_eq!(alice.ask("SET colour dark blue").await.unwrap(), "OK");
    assert_eq!(bob.ask("GET colour").await.unwrap(), "VALUE dark blue");
    assert_eq!(bob.ask("DEL colour").await.unwrap(), "OK");
    assert_eq!(alice.ask("GET colour").await.unwrap(), "NIL");
    assert!(bob.ask("FLY away").await.unwrap().starts_with("ERR"));

    // Many clients at once, each on its own key.
    let clients: Vec<_> = (0..20)
        .map(|i| {
            rt::spawn(async move {
                let mut client = Client::connect(addr).await?;
                for round in 0..10 {
                    let reply = client.ask(&format!("SET k{i} {round}")).await?;
                    assert_eq!(reply, "OK");
                }
                client.ask(&format!("GET k{i}")).await
            })
        })
        .collect();
    for (i, client) in clients.into_iter().enumerate() {
        let reply = rt::time::timeout(Duration::from_secs(10), client)
            .await
            .unwrap_or_else(|_| panic!("client {i} hung"))
            .unwrap()
            .unwrap();
        assert_eq!(reply, "VALUE 9");
    }
    assert_eq!(db.lock().await.len(), 20);

    // A client that shuts its side down gets the server's end of file.
    alice.writer.shutdown().await.unwrap();
    assert_eq!(alice.lines.next_line().await.unwrap(), None);
    server.abort();
}
