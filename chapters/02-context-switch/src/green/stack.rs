//! A fiber's stack: memory of our own, with a guard page below it.
//!
//! A stackful fiber needs a stack like a thread's. We map it ourselves with
//! `mmap`, the way the C library maps thread stacks, and make its lowest page
//! inaccessible (`PROT_NONE`). Stacks grow down, so a fiber that overflows
//! touches the guard page and dies with a segmentation fault at once, instead
//! of silently overwriting whatever memory lies below.
//!
//! Like a thread's stack, the mapping is only address space until touched: a
//! 64 KiB fiber stack costs one or two resident pages while its fiber does
//! little. Book: Chapter 2, "A switch in user space".

use std::io;
use std::ptr::NonNull;

/// A mapped stack with a guard page at its low end.
#[derive(Debug)]
pub struct Stack {
    base: NonNull<u8>,
    mapped: usize,
}

// SAFETY: a `Stack` is a uniquely owned memory mapping; nothing in it is tied
// to the thread that created it.
unsafe impl Send for Stack {}

impl Stack {
    /// Maps a stack with at least `usable` bytes above its guard page.
    pub fn new(usable: usize) -> io::Result<Stack> {
        let page = page_size();
        let usable = usable.max(page).div_ceil(page) * page;
        let mapped = usable + page;
        // SAFETY: an anonymous private mapping at an address of the kernel's
        // choosing touches no existing memory.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = Stack {
            base: NonNull::new(base.cast()).expect("mmap does not return null on success"),
            mapped,
        };
        // SAFETY: the first page lies inside the mapping we own.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error()); // `stack` unmaps on drop
        }
        Ok(stack)
    }

    /// One past the highest usable byte: where a stack that grows down starts.
    pub fn top(&self) -> *mut u8 {
        // SAFETY: `mapped` is the mapping's length, so this is its end.
        unsafe { self.base.as_ptr().add(self.mapped) }
    }

    /// Usable bytes (the mapping minus the guard page).
    pub fn usable_bytes(&self) -> usize {
        self.mapped - page_size()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: `base` and `mapped` describe a mapping we created and still
        // own; no context runs on it any more (the scheduler drops a stack
        // only after its fiber has finished or was never started).
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.mapped) };
    }
}

/// The size of a memory page.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_is_writable_up_to_its_top() {
        let stack = Stack::new(10_000).unwrap();
        assert!(stack.usable_bytes() >= 10_000);
        assert_eq!(stack.top() as usize % page_size(), 0);
        // SAFETY: the last usable byte and the first one above the guard
        // page are inside the writable part of the mapping.
        unsafe {
            stack.top().sub(1).write(1);
            stack.top().sub(stack.usable_bytes()).write(2);
        }
    }
}
