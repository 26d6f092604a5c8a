//! A counting global allocator: each thread knows how many bytes it holds and the most it
//! held, so a fuzz input run in a thread of its own can be held to an allocation limit.
//! Allocations freed on another thread than the one that made them only make the count
//! lower (it is signed), never a false blow-up.
// A global allocator is an `unsafe impl`; this one only counts and forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::GlobalAlloc;
use std::alloc::Layout;
use std::alloc::System;
use std::cell::Cell;

/// No single allocation of a fuzz input may be larger than this: one would be refused (the
/// process then aborts naming the size) before it could take the machine's memory.
pub const REFUSED_ALLOCATION: usize = 1 << 30;

thread_local! {
    // `const` initialisers without destructors: reading them never allocates.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LIMITED: Cell<bool> = const { Cell::new(false) };
}

/// Counts every allocation of the thread that makes it, on top of [`System`].
pub struct Counting;

fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(delta);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn refused(size: usize) -> bool {
    size > REFUSED_ALLOCATION && LIMITED.try_with(Cell::get).unwrap_or(false)
}

fn signed(size: usize) -> isize {
    isize::try_from(size).unwrap_or(isize::MAX)
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the only
// additions are thread-local counters, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded as received.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            count(signed(layout.size()));
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded as received.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            count(signed(layout.size()));
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(pointer, layout) };
        count(-signed(layout.size()));
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused(new_size) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded as received.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            count(signed(new_size) - signed(layout.size()));
        }
        moved
    }
}

/// Starts counting this thread's allocations from zero, with single allocations over
/// [`REFUSED_ALLOCATION`] refused from now on.
pub fn start_limited() {
    LIVE.with(|live| live.set(0));
    PEAK.with(|peak| peak.set(0));
    LIMITED.with(|limited| limited.set(true));
}

/// The most this thread held at once since [`start_limited`], in bytes.
pub fn peak() -> usize {
    usize::try_from(PEAK.with(Cell::get)).unwrap_or(0)
}
