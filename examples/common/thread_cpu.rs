//! This thread's CPU time, which the examples print beside wall-clock
//! times: on a machine shared with other jobs it is the figure load inflates
//! least. Included with `#[path]`, not an example.

/// CPU seconds this thread has used (Linux and other POSIX systems).
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
