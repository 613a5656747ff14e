//! The context switch itself, in assembly: save one flow of control, resume
//! another.
//!
//! A *context* is everything a function call promises to preserve. The
//! platform's calling convention splits registers in two: the *caller-saved*
//! ones a called function may destroy (the compiler already spills them
//! around any call), and the *callee-saved* ones it must give back intact.
//! So if switching is itself a function call, `switch(from, to)` only has
//! to save the callee-saved registers and the stack pointer of `from`, and
//! restore those of `to`. Everything else lives on each fiber's own stack.
//!
//! | | x86_64 (System V) | aarch64 (AAPCS64) |
//! |---|---|---|
//! | callee-saved integer | rbx, rbp, r12-r15 | x19-x28, x29 (frame), x30 (link) |
//! | callee-saved float/vector | MXCSR and x87 control word (control bits only) | d8-d15 (low halves of v8-v15) |
//! | reserved by LLVM, cannot be declared clobbered | rbx, rbp | x19, x29 |
//! | stack alignment at a call | rsp + 8 is a multiple of 16 on entry | sp is always a multiple of 16 |
//!
//! The textbook switch, [`switch_by_call`], is a naked function (stable
//! since Rust 1.88: the compiler adds no prologue, so the assembly alone
//! decides what is on the stack). It pushes the callee-saved registers onto
//! the current stack, stores the stack pointer in `from`, loads `to`'s stack
//! pointer, pops that context's registers and returns, *into the other
//! fiber*. Its `ret` is the catch: the CPU predicts where a `ret` goes from a
//! small hardware stack of recent `call` sites (the return stack buffer), and
//! a `ret` that lands in another fiber never matches it. Every switch pays a
//! mispredicted branch.
//!
//! [`switch_saving_all`] saves the same registers in the same frame layout,
//! but from inline assembly inside the caller: it pushes its own resume
//! address and leaves with an indirect `jmp` instead of a `ret`. Each call
//! site then has its own jump, whose target the branch predictor learns.
//! The two frames are identical, so either routine can resume a context the
//! other saved.
//!
//! [`switch`], the one the scheduler uses, saves far less. A switch must
//! hand back every callee-saved register, but only those that hold a value
//! the code around it still needs (the *live* ones) matter, and only the
//! compiler knows which they are. So the inline block declares the
//! callee-saved registers it may destroy as clobbered, and the compiler
//! saves the live ones around it, often once per function rather than once
//! per switch. The block saves by hand only what cannot be declared: the
//! frame pointer, the one other register LLVM reserves, and its resume
//! address. It leaves the floating-point control words alone: Rust assumes
//! they always hold their defaults, so they are equal in every fiber. Its
//! frame is smaller, so a context saved by `switch` can only be resumed by
//! `switch`.
//!
//! A new fiber has never been switched out, so [`Context::prepare`] (for
//! `switch`) and [`Context::prepare_full`] (for the other two) build the
//! frame a switch expects by hand, as if the fiber had been stopped just
//! before entering a trampoline. Its resume address is the trampoline, and
//! the two words above it hold the entry function and its argument. The
//! trampoline calls the entry function with a correctly aligned stack;
//! should that function ever return (it must not), the trampoline executes
//! a trapping instruction instead of running off into whatever lies beyond
//! the stack. Peers' green-thread code has crashed on exactly these two
//! points: misaligned stacks and entry functions that return.
//!
//! Book: Chapter 2, "A switch in user space".

/// Where a suspended context's registers are: its saved stack pointer.
///
/// A `Context` is only meaningful between a `switch` that saved it and the
/// `switch` that resumes it (or between [`Context::prepare`] and the first
/// switch into it).
#[derive(Debug, Default)]
#[repr(transparent)]
pub struct Context {
    sp: usize,
}

/// The entry function of a new context. It receives the argument given to
/// [`Context::prepare`] and must never return: when its work is done it
/// switches away for the last time.
pub type Entry = unsafe extern "C" fn(arg: *mut u8) -> !;

impl Context {
    /// The most bytes [`Context::prepare`] or [`Context::prepare_full`]
    /// writes at the top of the stack (the full frame is the larger).
    pub const INITIAL_FRAME_BYTES: usize = arch::FULL_FRAME_BYTES;

    /// Builds, at the top of the stack that ends (exclusively) at
    /// `stack_top`, a frame that makes the first [`switch`] into the returned
    /// context call `entry(arg)` with an ABI-correct stack.
    ///
    /// # Safety
    ///
    /// `stack_top` must be the end of a writable region of at least
    /// [`Context::INITIAL_FRAME_BYTES`] plus whatever `entry` needs, that
    /// stays valid and unused by anything else for as long as the context
    /// may run.
    pub unsafe fn prepare(stack_top: *mut u8, entry: Entry, arg: *mut u8) -> Context {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { Context::prepare_frame(stack_top, entry, arg, Frame::Live) }
    }

    /// Like [`Context::prepare`], for the routines that save every
    /// callee-saved register themselves, [`switch_saving_all`] and
    /// [`switch_by_call`]: their frames have a different layout.
    ///
    /// # Safety
    ///
    /// As for [`Context::prepare`].
    pub unsafe fn prepare_full(stack_top: *mut u8, entry: Entry, arg: *mut u8) -> Context {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { Context::prepare_frame(stack_top, entry, arg, Frame::Full) }
    }

    unsafe fn prepare_frame(
        stack_top: *mut u8,
        entry: Entry,
        arg: *mut u8,
        frame: Frame,
    ) -> Context {
        // Both ABIs want 16-byte alignment; round the top down to it.
        let top = (stack_top as usize) & !15;
        let bytes = match frame {
            Frame::Live => arch::LIVE_FRAME_BYTES,
            Frame::Full => arch::FULL_FRAME_BYTES,
        };
        let sp = top - bytes;
        // SAFETY: the caller guarantees `INITIAL_FRAME_BYTES` writable bytes
        // below `stack_top`, at least either frame's size; `sp` is 8-byte
        // aligned, so every u64 slot is aligned.
        unsafe { arch::write_initial_frame(sp as *mut u64, entry, arg, frame) };
        Context { sp }
    }
}

// `INITIAL_FRAME_BYTES` covers both frames.
const _: () = assert!(arch::FULL_FRAME_BYTES >= arch::LIVE_FRAME_BYTES);

/// Which routine a fresh frame is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// [`switch`]: the frame pointer, one more register and the resume
    /// address; the compiler saves whatever else is live.
    Live,
    /// [`switch_saving_all`] and [`switch_by_call`]: every callee-saved
    /// register, the control words, the resume address.
    Full,
}

/// Saves the current context into `*from` and resumes `*to`. Returns when
/// some later switch resumes `*from`.
///
/// The arguments are raw pointers, not references, on purpose: while this
/// call is "running" (that is, while our context is suspended), other code
/// reads `*from` to resume us, which a live `&mut` would forbid.
///
/// # Safety
///
/// `from` must be valid for writes. `to` must point to a context saved by
/// `switch` and not resumed since, or to a fresh one from
/// [`Context::prepare`], whose stack is still alive.
// ANCHOR: switch
#[inline(always)]
pub unsafe fn switch(from: *mut Context, to: *const Context) {
    // SAFETY: the caller upholds the contract stated above; `to` is read
    // before `from` is written, so the two may even be the same context.
    unsafe {
        let to_sp = (*to).sp;
        arch::switch_live(&raw mut (*from).sp, to_sp)
    }
}
// ANCHOR_END: switch

/// The same switch as [`switch`], but saving every callee-saved register
/// (and, on x86_64, the floating-point control words) by hand, from inline
/// assembly that leaves with a jump: the readable version, kept to measure
/// what saving registers that hold nothing costs.
///
/// # Safety
///
/// As for [`switch`], except that `to` must have been saved by this routine
/// or [`switch_by_call`], or prepared by [`Context::prepare_full`].
#[inline(always)]
pub unsafe fn switch_saving_all(from: *mut Context, to: *const Context) {
    // SAFETY: as in `switch`.
    unsafe {
        let to_sp = (*to).sp;
        arch::switch_inline(&raw mut (*from).sp, to_sp)
    }
}

/// The same frame as [`switch_saving_all`], through a call to the naked
/// `switch_context` and back with `ret`: the textbook version, kept to
/// measure what the mispredicted return costs.
///
/// # Safety
///
/// As for [`switch_saving_all`].
pub unsafe fn switch_by_call(from: *mut Context, to: *const Context) {
    // SAFETY: as in `switch`.
    unsafe {
        let to_sp = (*to).sp;
        arch::switch_context(&raw mut (*from).sp, to_sp)
    }
}

/// The stack pointer at the call site of this function: what the ABI
/// requires to be 16-byte aligned at every call. Tests call it inside fibers
/// to check that their stacks are set up right.
#[inline(never)]
pub fn stack_pointer_at_call() -> usize {
    // SAFETY: the naked function only reads the stack pointer.
    unsafe { arch::stack_pointer_at_call() }
}

#[cfg(target_arch = "x86_64")]
mod arch {
    use super::{Entry, Frame};
    use core::arch::naked_asm;

    /// Control word slot (MXCSR + x87 CW), six registers, return address,
    /// then the trampoline's entry function and argument.
    pub const FULL_FRAME_BYTES: usize = 10 * 8;
    /// Resume address, the trampoline's entry function and argument, and 16
    /// bytes that leave the stack pointer a multiple of 16 once the
    /// trampoline has popped those two.
    pub const LIVE_FRAME_BYTES: usize = 5 * 8;

    // ANCHOR: switch_x86_64
    /// Saves rbx, rbp, r12-r15, MXCSR and the x87 control word on the
    /// current stack, stores rsp in `*from`, loads rsp from `to`, restores
    /// the same registers from there and returns to the address on top of
    /// the new stack.
    #[unsafe(naked)]
    pub unsafe extern "C" fn switch_context(from: *mut usize, to: usize) {
        naked_asm!(
            // On entry rsp+8 is 16-aligned (the call pushed the return
            // address). Six pushes and 8 bytes make rsp 16-aligned again.
            "push rbp",
            "push rbx",
            "push r12",
            "push r13",
            "push r14",
            "push r15",
            "sub rsp, 8",
            "stmxcsr [rsp]",
            "fnstcw [rsp + 4]",
            // Save this context, adopt the other one.
            "mov [rdi], rsp",
            "mov rsp, rsi",
            "ldmxcsr [rsp]",
            "fldcw [rsp + 4]",
            "add rsp, 8",
            "pop r15",
            "pop r14",
            "pop r13",
            "pop r12",
            "pop rbx",
            "pop rbp",
            "ret",
        )
    }
    // ANCHOR_END: switch_x86_64

    // ANCHOR: switch_inline_x86_64
    /// The same frame as `switch_context`, built from inline assembly in the
    /// caller: the resume address is pushed by hand (label `2`), and the
    /// other context is entered with `jmp`, not `ret`. The compiler treats
    /// the block like a call (`clobber_abi("C")`): caller-saved registers are
    /// assumed destroyed; the callee-saved ones are saved and restored here.
    #[inline(always)]
    pub unsafe fn switch_inline(from: *mut usize, to: usize) {
        // SAFETY: the caller guarantees `from` is writable and `to` is a
        // saved or prepared context; the block leaves every callee-saved
        // register and the stack pointer as it found them once resumed.
        unsafe {
            core::arch::asm!(
                "lea rax, [rip + 2f]",
                "push rax",
                "push rbp",
                "push rbx",
                "push r12",
                "push r13",
                "push r14",
                "push r15",
                "sub rsp, 8",
                "stmxcsr [rsp]",
                "fnstcw [rsp + 4]",
                "mov [rdi], rsp",
                "mov rsp, rsi",
                "ldmxcsr [rsp]",
                "fldcw [rsp + 4]",
                "add rsp, 8",
                "pop r15",
                "pop r14",
                "pop r13",
                "pop r12",
                "pop rbx",
                "pop rbp",
                "pop rax",
                "jmp rax",
                "2:",
                inout("rdi") from => _,
                inout("rsi") to => _,
                clobber_abi("C"),
            )
        }
    }
    // ANCHOR_END: switch_inline_x86_64

    // ANCHOR: switch_live_x86_64
    /// Saves only what the compiler cannot: rbp and rbx (LLVM reserves
    /// both, so they cannot be declared clobbered) and the resume address
    /// (label `2`). r12-r15 are declared clobbered, like every caller-saved
    /// register (`clobber_abi("C")`), so the compiler itself saves, around
    /// this block, those that hold a value it still needs, and no others.
    #[inline(always)]
    pub unsafe fn switch_live(from: *mut usize, to: usize) {
        // SAFETY: the caller guarantees `from` is writable and `to` is a
        // context saved by this block or prepared for it; rbp, rbx and rsp
        // are as they were once we are resumed, and the compiler has saved
        // every other register it needs.
        unsafe {
            core::arch::asm!(
                "push rbp",
                "push rbx",
                "lea rax, [rip + 2f]",
                "push rax",
                "mov [rdi], rsp", // suspend: our stack pointer into *from
                "mov rsp, rsi",   // adopt the other context's stack
                "pop rax",
                "jmp rax", // resume it where it stopped: at its own `2:`
                "2:",
                "pop rbx",
                "pop rbp",
                inout("rdi") from => _,
                inout("rsi") to => _,
                out("r12") _,
                out("r13") _,
                out("r14") _,
                out("r15") _,
                clobber_abi("C"),
            )
        }
    }
    // ANCHOR_END: switch_live_x86_64

    /// Returns the caller's rsp just before its `call` (rsp + 8 on entry).
    #[unsafe(naked)]
    pub unsafe extern "C" fn stack_pointer_at_call() -> usize {
        naked_asm!("lea rax, [rsp + 8]", "ret")
    }

    /// The first code a new context runs, entered by either kind of switch
    /// with the entry function and its argument on top of the stack (the
    /// initial frame put them there): pop them, which leaves rsp 16-aligned,
    /// clear rbp to end the frame-pointer chain, call `entry(arg)`, and trap
    /// if it ever returns.
    #[unsafe(naked)]
    unsafe extern "C" fn trampoline() -> ! {
        naked_asm!("pop rax", "pop rdi", "xor ebp, ebp", "call rax", "ud2")
    }

    /// Writes the frame a switch of the given kind pops for a fresh context.
    ///
    /// # Safety
    ///
    /// `sp` must be 8-byte aligned with the frame's bytes writable from it.
    pub unsafe fn write_initial_frame(sp: *mut u64, entry: Entry, arg: *mut u8, frame: Frame) {
        let entry = entry as *const () as usize as u64;
        let trampoline = trampoline as *const () as usize as u64;
        match frame {
            Frame::Live => {
                let frame: [u64; 5] = [
                    trampoline, // resume address
                    entry,      // for the trampoline
                    arg as u64, // for the trampoline
                    0,          // padding: the trampoline's rsp is 16-aligned
                    0,
                ];
                // SAFETY: the caller guarantees 40 writable, aligned bytes.
                unsafe { sp.cast::<[u64; 5]>().write(frame) };
            }
            Frame::Full => {
                // Default MXCSR (all exceptions masked, round to nearest)
                // and x87 control word (extended precision, exceptions
                // masked).
                let control = 0x1F80u64 | (0x037Fu64 << 32);
                let frame: [u64; 10] = [
                    control, 0,          // r15
                    0,          // r14
                    0,          // r13
                    0,          // r12
                    0,          // rbx
                    0,          // rbp
                    trampoline, // return address
                    entry,      // for the trampoline
                    arg as u64, // for the trampoline
                ];
                // SAFETY: the caller guarantees 80 writable, aligned bytes.
                unsafe { sp.cast::<[u64; 10]>().write(frame) };
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod arch {
    use super::{Entry, Frame};
    use core::arch::naked_asm;

    /// x19-x30 (twelve) and d8-d15 (eight), 8 bytes each, then the
    /// trampoline's entry function and argument.
    pub const FULL_FRAME_BYTES: usize = 22 * 8;
    /// x19, x29, the resume address and 8 bytes that keep sp a multiple
    /// of 16.
    pub const LIVE_FRAME_BYTES: usize = 4 * 8;

    /// Saves x19-x30 and d8-d15 on the current stack, stores sp in
    /// `*from`, loads sp from `to`, restores the same registers and
    /// returns through x30.
    #[unsafe(naked)]
    pub unsafe extern "C" fn switch_context(from: *mut usize, to: usize) {
        naked_asm!(
            "sub sp, sp, #160",
            "stp x19, x20, [sp, #0]",
            "stp x21, x22, [sp, #16]",
            "stp x23, x24, [sp, #32]",
            "stp x25, x26, [sp, #48]",
            "stp x27, x28, [sp, #64]",
            "stp x29, x30, [sp, #80]",
            "stp d8, d9, [sp, #96]",
            "stp d10, d11, [sp, #112]",
            "stp d12, d13, [sp, #128]",
            "stp d14, d15, [sp, #144]",
            "mov x2, sp",
            "str x2, [x0]",
            "mov sp, x1",
            "ldp x19, x20, [sp, #0]",
            "ldp x21, x22, [sp, #16]",
            "ldp x23, x24, [sp, #32]",
            "ldp x25, x26, [sp, #48]",
            "ldp x27, x28, [sp, #64]",
            "ldp x29, x30, [sp, #80]",
            "ldp d8, d9, [sp, #96]",
            "ldp d10, d11, [sp, #112]",
            "ldp d12, d13, [sp, #128]",
            "ldp d14, d15, [sp, #144]",
            "add sp, sp, #160",
            "ret",
        )
    }

    /// The same frame as `switch_context`, from inline assembly: the resume
    /// address (label `2`) goes in the x30 slot and the other context is
    /// entered with `br`, not `ret`.
    #[inline(always)]
    pub unsafe fn switch_inline(from: *mut usize, to: usize) {
        // SAFETY: the caller guarantees `from` is writable and `to` is a
        // saved or prepared context; every callee-saved register and sp are
        // as they were once this context is resumed.
        unsafe {
            core::arch::asm!(
                "adr x9, 2f",
                "sub sp, sp, #160",
                "stp x19, x20, [sp, #0]",
                "stp x21, x22, [sp, #16]",
                "stp x23, x24, [sp, #32]",
                "stp x25, x26, [sp, #48]",
                "stp x27, x28, [sp, #64]",
                "stp x29, x9, [sp, #80]",
                "stp d8, d9, [sp, #96]",
                "stp d10, d11, [sp, #112]",
                "stp d12, d13, [sp, #128]",
                "stp d14, d15, [sp, #144]",
                "mov x10, sp",
                "str x10, [x0]",
                "mov sp, x1",
                "ldp x19, x20, [sp, #0]",
                "ldp x21, x22, [sp, #16]",
                "ldp x23, x24, [sp, #32]",
                "ldp x25, x26, [sp, #48]",
                "ldp x27, x28, [sp, #64]",
                "ldp x29, x9, [sp, #80]",
                "ldp d8, d9, [sp, #96]",
                "ldp d10, d11, [sp, #112]",
                "ldp d12, d13, [sp, #128]",
                "ldp d14, d15, [sp, #144]",
                "add sp, sp, #160",
                "br x9",
                "2:",
                inout("x0") from => _,
                inout("x1") to => _,
                clobber_abi("C"),
            )
        }
    }

    /// Saves only what the compiler cannot: x19 (LLVM reserves it) and
    /// x29 (the frame pointer), and the resume address (label `2`). x20-x28
    /// are declared clobbered, like every caller-saved register and d8-d15
    /// (`clobber_abi("C")` covers all of v0-v31), so the compiler saves
    /// around this block those that hold a value it still needs.
    #[inline(always)]
    pub unsafe fn switch_live(from: *mut usize, to: usize) {
        // SAFETY: the caller guarantees `from` is writable and `to` is a
        // context saved by this block or prepared for it; x19, x29 and sp
        // are as they were once we are resumed, and the compiler has saved
        // every other register it needs.
        unsafe {
            core::arch::asm!(
                "adr x9, 2f",
                "sub sp, sp, #32",
                "stp x19, x29, [sp, #0]",
                "str x9, [sp, #16]",
                "mov x10, sp",
                "str x10, [x0]",
                "mov sp, x1",
                "ldr x9, [sp, #16]",
                "br x9",
                "2:",
                "ldp x19, x29, [sp, #0]",
                "add sp, sp, #32",
                inout("x0") from => _,
                inout("x1") to => _,
                out("x20") _,
                out("x21") _,
                out("x22") _,
                out("x23") _,
                out("x24") _,
                out("x25") _,
                out("x26") _,
                out("x27") _,
                out("x28") _,
                clobber_abi("C"),
            )
        }
    }

    /// Returns the caller's sp (a `bl` does not move it).
    #[unsafe(naked)]
    pub unsafe extern "C" fn stack_pointer_at_call() -> usize {
        naked_asm!("mov x0, sp", "ret")
    }

    /// The first code a new context runs, entered by either kind of switch
    /// with the entry function and its argument at sp (the initial frame
    /// put them there): load them and pop 16 bytes, clear x29 to end the
    /// frame-pointer chain, call `entry(arg)`, and trap if it ever returns.
    #[unsafe(naked)]
    unsafe extern "C" fn trampoline() -> ! {
        naked_asm!("ldp x9, x0, [sp], #16", "mov x29, xzr", "blr x9", "brk #1")
    }

    /// Writes the frame a switch of the given kind pops for a fresh context.
    ///
    /// # Safety
    ///
    /// `sp` must be 16-byte aligned with the frame's bytes writable from it.
    pub unsafe fn write_initial_frame(sp: *mut u64, entry: Entry, arg: *mut u8, frame: Frame) {
        let entry = entry as *const () as usize as u64;
        let trampoline = trampoline as *const () as usize as u64;
        match frame {
            Frame::Live => {
                // Read by the trampoline, not by the switch (a fresh
                // context is resumed at the trampoline, not at label `2`):
                // entry, argument, resume address, padding.
                let frame: [u64; 4] = [entry, arg as u64, trampoline, 0];
                // SAFETY: the caller guarantees 32 writable, aligned bytes.
                unsafe { sp.cast::<[u64; 4]>().write(frame) };
            }
            Frame::Full => {
                let mut frame = [0u64; 22];
                frame[11] = trampoline; // x30: where `ret` goes
                frame[20] = entry; // for the trampoline
                frame[21] = arg as u64;
                // SAFETY: the caller guarantees 176 writable, aligned bytes.
                unsafe { sp.cast::<[u64; 22]>().write(frame) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The switch must hand back every callee-saved register intact. These
    //! tests fill them with known values, switch to a fiber that fills them
    //! with garbage, switch back, and compare, in assembly, since Rust code
    //! cannot hold a value in a chosen register across a call.
    use super::*;
    use crate::green::stack::Stack;
    #[cfg(target_arch = "aarch64")]
    use aarch64_helpers::{canary_switch, clobber_switch};
    #[cfg(target_arch = "x86_64")]
    use x86_64_helpers::{canary_switch, clobber_switch};

    #[cfg(target_arch = "x86_64")]
    mod x86_64_helpers {
        use super::SwitchFn;
        use core::arch::naked_asm;

        /// Puts canaries in rbx, rbp, r12-r15 and a non-default MXCSR (round
        /// toward zero), calls `switch(from, to)`, and returns a bit mask of
        /// the registers that did not come back intact (0 when all did; bit 6
        /// is MXCSR).
        #[unsafe(naked)]
        pub unsafe extern "C" fn canary_switch(
            from: *mut usize,
            to: usize,
            switch: SwitchFn,
        ) -> u64 {
            naked_asm!(
                "push rbp",
                "push rbx",
                "push r12",
                "push r13",
                "push r14",
                "push r15",
                "sub rsp, 8",
                "stmxcsr [rsp]",
                "mov rbx, 0x1111111111111111",
                "mov rbp, 0x2222222222222222",
                "mov r12, 0x3333333333333333",
                "mov r13, 0x4444444444444444",
                "mov r14, 0x5555555555555555",
                "mov r15, 0x6666666666666666",
                "sub rsp, 16",
                "mov dword ptr [rsp], 0x7F80",
                "ldmxcsr [rsp]",
                "add rsp, 16",
                "call rdx",
                "xor eax, eax",
                "mov rcx, 0x1111111111111111",
                "cmp rbx, rcx",
                "je 2f",
                "or eax, 1",
                "2:",
                "mov rcx, 0x2222222222222222",
                "cmp rbp, rcx",
                "je 3f",
                "or eax, 2",
                "3:",
                "mov rcx, 0x3333333333333333",
                "cmp r12, rcx",
                "je 4f",
                "or eax, 4",
                "4:",
                "mov rcx, 0x4444444444444444",
                "cmp r13, rcx",
                "je 5f",
                "or eax, 8",
                "5:",
                "mov rcx, 0x5555555555555555",
                "cmp r14, rcx",
                "je 6f",
                "or eax, 16",
                "6:",
                "mov rcx, 0x6666666666666666",
                "cmp r15, rcx",
                "je 7f",
                "or eax, 32",
                "7:",
                "sub rsp, 16",
                "stmxcsr [rsp]",
                "mov ecx, [rsp]",
                "add rsp, 16",
                "cmp ecx, 0x7F80",
                "je 8f",
                "or eax, 64",
                "8:",
                "ldmxcsr [rsp]",
                "add rsp, 8",
                "pop r15",
                "pop r14",
                "pop r13",
                "pop r12",
                "pop rbx",
                "pop rbp",
                "ret",
            )
        }

        /// Fills every callee-saved register with garbage and MXCSR with its
        /// default, then calls `switch(from, to)`; restores its caller's
        /// registers when resumed.
        #[unsafe(naked)]
        pub unsafe extern "C" fn clobber_switch(from: *mut usize, to: usize, switch: SwitchFn) {
            naked_asm!(
                "push rbp",
                "push rbx",
                "push r12",
                "push r13",
                "push r14",
                "push r15",
                "sub rsp, 8",
                "stmxcsr [rsp]",
                "mov rbx, 0xDEADBEEFDEADBEEF",
                "mov rbp, rbx",
                "mov r12, rbx",
                "mov r13, rbx",
                "mov r14, rbx",
                "mov r15, rbx",
                "sub rsp, 16",
                "mov dword ptr [rsp], 0x1F80",
                "ldmxcsr [rsp]",
                "add rsp, 16",
                "call rdx",
                "ldmxcsr [rsp]",
                "add rsp, 8",
                "pop r15",
                "pop r14",
                "pop r13",
                "pop r12",
                "pop rbx",
                "pop rbp",
                "ret",
            )
        }
    }

    #[cfg(target_arch = "aarch64")]
    mod aarch64_helpers {
        use super::SwitchFn;
        use core::arch::naked_asm;

        /// Puts canaries in x19-x29 and d8-d15, calls `switch(from, to)`, and
        /// returns a bit mask of the registers that did not come back intact
        /// (bits 0-10 for x19-x29, 11-18 for d8-d15).
        #[unsafe(naked)]
        pub unsafe extern "C" fn canary_switch(
            from: *mut usize,
            to: usize,
            switch: SwitchFn,
        ) -> u64 {
            naked_asm!(
                "sub sp, sp, #160",
                "stp x19, x20, [sp, #0]",
                "stp x21, x22, [sp, #16]",
                "stp x23, x24, [sp, #32]",
                "stp x25, x26, [sp, #48]",
                "stp x27, x28, [sp, #64]",
                "stp x29, x30, [sp, #80]",
                "stp d8, d9, [sp, #96]",
                "stp d10, d11, [sp, #112]",
                "stp d12, d13, [sp, #128]",
                "stp d14, d15, [sp, #144]",
                "mov x19, #0x1019",
                "mov x20, #0x1020",
                "mov x21, #0x1021",
                "mov x22, #0x1022",
                "mov x23, #0x1023",
                "mov x24, #0x1024",
                "mov x25, #0x1025",
                "mov x26, #0x1026",
                "mov x27, #0x1027",
                "mov x28, #0x1028",
                "mov x29, #0x1029",
                "mov x9, #0x3008",
                "fmov d8, x9",
                "mov x9, #0x3009",
                "fmov d9, x9",
                "mov x9, #0x3010",
                "fmov d10, x9",
                "mov x9, #0x3011",
                "fmov d11, x9",
                "mov x9, #0x3012",
                "fmov d12, x9",
                "mov x9, #0x3013",
                "fmov d13, x9",
                "mov x9, #0x3014",
                "fmov d14, x9",
                "mov x9, #0x3015",
                "fmov d15, x9",
                "blr x2",
                "mov x0, #0",
                "mov x9, #0x1019",
                "cmp x19, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #0",
                "mov x9, #0x1020",
                "cmp x20, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #1",
                "mov x9, #0x1021",
                "cmp x21, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #2",
                "mov x9, #0x1022",
                "cmp x22, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #3",
                "mov x9, #0x1023",
                "cmp x23, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #4",
                "mov x9, #0x1024",
                "cmp x24, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #5",
                "mov x9, #0x1025",
                "cmp x25, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #6",
                "mov x9, #0x1026",
                "cmp x26, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #7",
                "mov x9, #0x1027",
                "cmp x27, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #8",
                "mov x9, #0x1028",
                "cmp x28, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #9",
                "mov x9, #0x1029",
                "cmp x29, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #10",
                "fmov x11, d8",
                "mov x9, #0x3008",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #11",
                "fmov x11, d9",
                "mov x9, #0x3009",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #12",
                "fmov x11, d10",
                "mov x9, #0x3010",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #13",
                "fmov x11, d11",
                "mov x9, #0x3011",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #14",
                "fmov x11, d12",
                "mov x9, #0x3012",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #15",
                "fmov x11, d13",
                "mov x9, #0x3013",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #16",
                "fmov x11, d14",
                "mov x9, #0x3014",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #17",
                "fmov x11, d15",
                "mov x9, #0x3015",
                "cmp x11, x9",
                "cset x10, ne",
                "orr x0, x0, x10, lsl #18",
                "ldp x19, x20, [sp, #0]",
                "ldp x21, x22, [sp, #16]",
                "ldp x23, x24, [sp, #32]",
                "ldp x25, x26, [sp, #48]",
                "ldp x27, x28, [sp, #64]",
                "ldp x29, x30, [sp, #80]",
                "ldp d8, d9, [sp, #96]",
                "ldp d10, d11, [sp, #112]",
                "ldp d12, d13, [sp, #128]",
                "ldp d14, d15, [sp, #144]",
                "add sp, sp, #160",
                "ret",
            )
        }

        /// Fills x19-x29 and d8-d15 with garbage, then calls `switch(from,
        /// to)`; restores its caller's registers when resumed.
        #[unsafe(naked)]
        pub unsafe extern "C" fn clobber_switch(from: *mut usize, to: usize, switch: SwitchFn) {
            naked_asm!(
                "sub sp, sp, #160",
                "stp x19, x20, [sp, #0]",
                "stp x21, x22, [sp, #16]",
                "stp x23, x24, [sp, #32]",
                "stp x25, x26, [sp, #48]",
                "stp x27, x28, [sp, #64]",
                "stp x29, x30, [sp, #80]",
                "stp d8, d9, [sp, #96]",
                "stp d10, d11, [sp, #112]",
                "stp d12, d13, [sp, #128]",
                "stp d14, d15, [sp, #144]",
                "mov x19, #0xdead",
                "mov x20, x19",
                "mov x21, x19",
                "mov x22, x19",
                "mov x23, x19",
                "mov x24, x19",
                "mov x25, x19",
                "mov x26, x19",
                "mov x27, x19",
                "mov x28, x19",
                "mov x29, x19",
                "fmov d8, x19",
                "fmov d9, x19",
                "fmov d10, x19",
                "fmov d11, x19",
                "fmov d12, x19",
                "fmov d13, x19",
                "fmov d14, x19",
                "fmov d15, x19",
                "blr x2",
                "ldp x19, x20, [sp, #0]",
                "ldp x21, x22, [sp, #16]",
                "ldp x23, x24, [sp, #32]",
                "ldp x25, x26, [sp, #48]",
                "ldp x27, x28, [sp, #64]",
                "ldp x29, x30, [sp, #80]",
                "ldp d8, d9, [sp, #96]",
                "ldp d10, d11, [sp, #112]",
                "ldp d12, d13, [sp, #128]",
                "ldp d14, d15, [sp, #144]",
                "add sp, sp, #160",
                "ret",
            )
        }
    }

    /// The canary bit of the floating-point control state (MXCSR), which
    /// [`switch`] leaves alone on purpose: Rust code never changes it.
    #[cfg(target_arch = "x86_64")]
    const FP_CONTROL: u64 = 1 << 6;
    /// aarch64's helpers check no floating-point control state.
    #[cfg(target_arch = "aarch64")]
    const FP_CONTROL: u64 = 0;

    /// A switch routine as the assembly helpers call it.
    type SwitchFn = unsafe extern "C" fn(from: *mut usize, to: usize);

    /// [`switch`]'s assembly in a function of its own, so that the helpers
    /// can call it. Its prologue and epilogue are the compiler's: they save
    /// and restore exactly the registers the block declares clobbered and
    /// the caller expects preserved, so the test checks those declarations.
    #[inline(never)]
    unsafe extern "C" fn live_switch(from: *mut usize, to: usize) {
        // SAFETY: the test passes a writable `from` and a prepared or saved `to`.
        unsafe { arch::switch_live(from, to) }
    }

    /// [`switch_saving_all`]'s assembly, likewise.
    #[inline(never)]
    unsafe extern "C" fn saving_all_switch(from: *mut usize, to: usize) {
        // SAFETY: as in `live_switch`.
        unsafe { arch::switch_inline(from, to) }
    }

    struct Pair {
        main: Context,
        fiber: Context,
        switch: SwitchFn,
    }

    unsafe extern "C" fn clobbering_fiber(arg: *mut u8) -> ! {
        let pair = arg.cast::<Pair>();
        loop {
            // SAFETY: `pair` outlives the test's switches; `main` was saved
            // by the switch that resumed us.
            unsafe { clobber_switch(&raw mut (*pair).fiber.sp, (*pair).main.sp, (*pair).switch) };
        }
    }

    /// Switches to a register-clobbering fiber and back a thousand times
    /// and returns the union of the registers that came back changed.
    fn broken_registers(switch: SwitchFn, frame: Frame) -> u64 {
        let stack = Stack::new(16 * 1024).unwrap();
        let pair = Box::into_raw(Box::new(Pair {
            main: Context::default(),
            fiber: Context::default(),
            switch,
        }));
        // SAFETY: the stack is ours and unused; `pair` lives until the end.
        unsafe {
            (*pair).fiber =
                Context::prepare_frame(stack.top(), clobbering_fiber, pair.cast(), frame)
        };
        let mut broken = 0;
        for _ in 0..1000 {
            // SAFETY: the fiber context is fresh or saved by its last switch.
            broken |= unsafe { canary_switch(&raw mut (*pair).main.sp, (*pair).fiber.sp, switch) };
        }
        // SAFETY: the fiber stays suspended for good.
        drop(unsafe { Box::from_raw(pair) });
        broken
    }

    #[test]
    fn callee_saved_registers_survive_the_textbook_switch() {
        let broken = broken_registers(arch::switch_context, Frame::Full);
        assert_eq!(broken, 0, "registers not restored: {broken:#b}");
    }

    #[test]
    fn callee_saved_registers_survive_the_switch_saving_all() {
        let broken = broken_registers(saving_all_switch, Frame::Full);
        assert_eq!(broken, 0, "registers not restored: {broken:#b}");
    }

    #[test]
    fn callee_saved_registers_survive_the_live_switch() {
        let broken = broken_registers(live_switch, Frame::Live);
        assert_eq!(
            broken & !FP_CONTROL,
            0,
            "registers not restored: {broken:#b}"
        );
    }
}
