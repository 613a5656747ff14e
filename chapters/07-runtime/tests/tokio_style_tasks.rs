//! Three more programs written the way a Tokio user writes them, with
//! `tokio::` spelled `rt::`, using the API of the third audit round: a
//! crawler that maps `JoinSet::join_next_with_id` results (and a failed
//! page's `JoinError::id`) back to its inputs; a producer that drops
//! readings with `send_timeout` when a slow consumer falls behind, in
//! paused time; and a shared configuration behind an `RwLock`, read
//! through mapped guards by tasks that wait on an owned `Notified` for a
//! reload and on a `SetOnce` for the start signal.
//!
//! Nothing here asserts on wall-clock time: the timed parts run in paused
//! time or only bound how long a test may hang.

#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::{
    Notify, OwnedRwLockReadGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, Semaphore, SetOnce,
    mpsc,
};
use rt::task::{Id, JoinSet};
use rt::time::{self, Duration};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

// --- 1. A crawler: a JoinSet of fetches, results mapped back by id. -----

/// The pages of a small fake web: each links to others.
fn web() -> HashMap<&'static str, Vec<&'static str>> {
    HashMap::from([
        ("/", vec!["/a", "/b", "/c"]),
        ("/a", vec!["/b", "/d"]),
        ("/b", vec!["/", "/e"]),
        ("/c", vec!["/broken"]),
        ("/d", vec![]),
        ("/e", vec!["/a"]),
    ])
}

/// "Fetches" a page: its links after a short wait; a page that is not in
/// the web makes the fetch panic, as a bug in a parser would.
async fn fetch(
    web: Arc<HashMap<&'static str, Vec<&'static str>>>,
    url: String,
) -> Vec<&'static str> {
    time::sleep(Duration::from_millis(1 + url.len() as u64)).await;
    match web.get(url.as_str()) {
        Some(links) => links.clone(),
        None => panic!("cannot parse {url}"),
    }
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawler_maps_each_finished_fetch_back_to_its_url() {
    let web = Arc::new(web());
    // At most two fetches at once.
    let permits = Arc::new(Semaphore::new(2));
    let mut fetches = JoinSet::new();
    let mut url_of: HashMap<Id, String> = HashMap::new();
    let mut queued = BTreeSet::from(["/".to_string()]);
    let mut crawled = BTreeSet::new();
    let mut failed = Vec::new();

    let start = |url: String, fetches: &mut JoinSet<_>, url_of: &mut HashMap<Id, String>| {
        let (web, permits) = (web.clone(), permits.clone());
        let handle = fetches.spawn({
            let url = url.clone();
            async move {
                let _permit = permits.acquire_owned().await.unwrap();
                fetch(web, url).await
            }
        });
        url_of.insert(handle.id(), url);
    };
    start("/".to_string(), &mut fetches, &mut url_of);

    while let Some(joined) = fetches.join_next_with_id().await {
        match joined {
            Ok((id, links)) => {
                crawled.insert(url_of.remove(&id).expect("every id was recorded"));
                for link in links {
                    if queued.insert(link.to_string()) {
                        start(link.to_string(), &mut fetches, &mut url_of);
                    }
                }
            }
            Err(error) if error.is_panic() => {
                failed.push(url_of.remove(&error.id()).expect("a failed id too"));
            }
            Err(error) => panic!("nothing was cancelled: {error}"),
        }
    }

    let expected: BTreeSet<String> = ["/", "/a", "/b", "/c", "/d", "/e"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(crawled, expected);
    assert_eq!(failed, ["/broken"]);
    assert!(url_of.is_empty(), "every task was joined once");
}

// --- 2. A producer that drops readings a slow consumer cannot take. -----

#[rt::test(start_paused = true)]
async fn a_producer_drops_what_a_slow_consumer_cannot_take_in_time() {
    let (tx, mut rx) = mpsc::channel::<u32>(2);
    let consumer = rt::spawn(async move {
        let mut got = Vec::new();
        while let Some(reading) = rx.recv().await {
            got.push(reading);
            // Far slower than the producer.
            time::sleep(Duration::from_millis(100)).await;
        }
        got
    });
    let mut dropped = Vec::new();
    for reading in 0..12u32 {
        match tx.send_timeout(reading, Duration::from_millis(30)).await {
            Ok(()) => {}
            Err(mpsc::error::SendTimeoutError::Timeout(reading)) => dropped.push(reading),
            Err(mpsc::error::SendTimeoutError::Closed(_)) => panic!("the consumer never stops"),
        }
        time::sleep(Duration::from_millis(10)).await;
    }
    drop(tx);
    let got = consumer.await.unwrap();
    assert!(!dropped.is_empty(), "a consumer this slow must fall behind");
    assert_eq!(
        got.len() + dropped.len(),
        12,
        "each reading is delivered or dropped"
    );
    assert!(
        got.windows(2).all(|pair| pair[0] < pair[1]),
        "in order: {got:?}"
    );
    assert_eq!(got[..2], [0, 1], "the first two fit in the buffer");
}

// --- 3. A configuration read through mapped guards, reloaded on notice. --

#[derive(Debug, Clone, PartialEq)]
struct Limits {
    max_connections: u32,
    timeout_ms: u64,
}

#[derive(Debug)]
struct Config {
    name: String,
    limits: Limits,
}

/// A reader task's view: only the limits, never the whole config.
async fn current_limits(config: &RwLock<Config>) -> Limits {
    let limits = RwLockReadGuard::map(config.read().await, |c| &c.limits);
    limits.clone()
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_see_the_limits_section_and_follow_a_reload() {
    let config = Arc::new(RwLock::new(Config {
        name: "edge".to_string(),
        limits: Limits {
            max_connections: 10,
            timeout_ms: 500,
        },
    }));
    let started = Arc::new(SetOnce::new());
    let reloaded = Arc::new(Notify::new());

    let mut readers = JoinSet::new();
    for _ in 0..3 {
        let (config, started) = (config.clone(), started.clone());
        // Each reader is in line for the reload before it starts.
        let mut reload = Box::pin(reloaded.clone().notified_owned());
        reload.as_mut().enable();
        readers.spawn(async move {
            let name = OwnedRwLockReadGuard::map(config.clone().read_owned().await, |c| &c.name);
            assert_eq!(&**name, "edge");
            drop(name);
            let go: &u64 = started.wait().await;
            let before = current_limits(&config).await;
            reload.await;
            let after = current_limits(&config).await;
            (*go, before, after)
        });
    }

    started.set(1).unwrap();
    // Let the readers take their first look.
    time::sleep(Duration::from_millis(20)).await;
    {
        let mut limits = RwLockWriteGuard::map(config.write().await, |c| &mut c.limits);
        limits.max_connections = 20;
        limits.timeout_ms = 250;
    }
    reloaded.notify_waiters();

    let new = Limits {
        max_connections: 20,
        timeout_ms: 250,
    };
    while let Some(joined) = readers.join_next().await {
        let (go, _before, after) = joined.unwrap();
        assert_eq!(go, 1);
        assert_eq!(after, new);
    }
}
