//! `top` under a pseudo-terminal, as a reader runs it: it draws frames on
//! the alternate screen, quits on `q`, and restores the terminal.
#![cfg(not(loom))]
#![cfg(not(miri))]

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A pseudo-terminal pair: (controller, terminal).
fn openpty() -> (OwnedFd, OwnedFd) {
    let (mut controller, mut terminal) = (0, 0);
    // SAFETY: openpty writes two descriptors into the given integers; the
    // name, termios and winsize pointers may be null.
    let result = unsafe {
        libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(result, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just created and are owned by nobody else.
    unsafe {
        (
            OwnedFd::from_raw_fd(controller),
            OwnedFd::from_raw_fd(terminal),
        )
    }
}

#[test]
fn top_draws_and_quits_on_q_under_a_terminal() {
    let (controller, terminal) = openpty();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chapter-07"))
        .args([
            "top",
            "--workload",
            "skewed",
            "--interval-ms",
            "100",
            "--duration",
            "60",
        ])
        .stdin(Stdio::from(terminal.try_clone().unwrap()))
        .stdout(Stdio::from(terminal.try_clone().unwrap()))
        .stderr(Stdio::from(terminal))
        .spawn()
        .expect("the binary runs");
    let output = Arc::new(Mutex::new(Vec::new()));
    let mut reader = std::fs::File::from(controller.try_clone().unwrap());
    {
        let output = output.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                output.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let seen = |text: &str| String::from_utf8_lossy(&output.lock().unwrap()).contains(text);
    while !seen("polls/s") {
        assert!(Instant::now() < deadline, "no frame was drawn");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut writer = std::fs::File::from(controller);
    writer.write_all(b"q").unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("top did not quit on q");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    // The alternate screen was left and the cursor shown again. The child has
    // exited, but its last bytes may not have reached the reader thread yet:
    // wait for them (bounded) rather than for a fixed 100 ms.
    let restored = Instant::now() + Duration::from_secs(10);
    while !(seen("\x1b[?1049l") && seen("\x1b[?25h")) && Instant::now() < restored {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(seen("\x1b[?1049l"), "the terminal was not restored");
    assert!(seen("\x1b[?25h"));
}

#[test]
fn top_without_a_terminal_prints_frames_and_stops_after_its_duration() {
    let output = Command::new(env!("CARGO_BIN_EXE_chapter-07"))
        .args([
            "top",
            "--workload",
            "timers",
            "--interval-ms",
            "100",
            "--duration",
            "1",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.matches("rt top: workload timers").count() >= 3,
        "{text}"
    );
    assert!(
        !text.contains("\x1b["),
        "no escape sequences off a terminal"
    );
}
