//! `chapter-10`: completion-based I/O with io_uring.

fn main() -> std::process::ExitCode {
    eprintln!("error: chapter-10 is being written");
    std::process::ExitCode::FAILURE
}
