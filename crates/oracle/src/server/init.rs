//! The small init of a server's PID namespace. The child that mcpevol spawns (the relay, P)
//! has just made the namespace; it forks the init (G, pid 1 inside), which mounts the
//! namespace's own `/proc` and forks the process that execs the server (S). G reaps every
//! orphan the server leaves and, when S exits, exits too, and the kernel kills whatever is
//! left inside, however it detached (`setsid`, a double fork, a changed `HOME`). P waits for
//! G and ends as S ended (its exit code, or its signal), so mcpevol sees the server's status.
//!
//! All of it runs between fork and exec in a child of a multi-threaded process: raw syscalls
//! only, no allocation, no lock. P and G close every descriptor they inherited, so that only S
//! holds the server's pipes and the spawn's error pipe (closed by exec, or carrying the errno
//! of a failed step to the parent).

use std::io;

/// What the init's steps can fail at, for the caller's error report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failed {
    /// A pipe or a fork.
    Fork,
    /// Mounting the namespace's `/proc`.
    Proc,
}

/// Where mcpevol's command line and initial environment lie in its memory (`arg_start` to
/// `arg_end`, `env_start` to `env_end` of `/proc/self/stat`): G, a copy of that memory, zeroes
/// them, since `/proc/1/cmdline` is readable by every process of the namespace whatever else
/// guards G.
#[derive(Debug, Clone, Copy, Default)]
pub struct OwnStrings {
    ranges: [(usize, usize); 2],
}

impl OwnStrings {
    /// Read once, in the parent.
    pub fn read() -> OwnStrings {
        static READ: std::sync::OnceLock<OwnStrings> = std::sync::OnceLock::new();
        *READ.get_or_init(|| {
            let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
            // Fields after the command name (in parentheses, which may hold anything).
            let fields: Vec<usize> = stat
                .rsplit_once(')')
                .map(|(_, rest)| {
                    rest.split_whitespace()
                        .map(|f| f.parse().unwrap_or(0))
                        .collect()
                })
                .unwrap_or_default();
            // arg_start is field 48 of proc(5): index 45 after the name (field 2) and state.
            let at = |i: usize| fields.get(i).copied().unwrap_or(0);
            OwnStrings {
                ranges: [(at(45), at(46)), (at(47), at(48))],
            }
        })
    }

    /// Zeroes the strings in this process's memory.
    ///
    /// # Safety
    /// Call only in a forked child that will never read its arguments or environment again.
    unsafe fn forget(&self) {
        for (start, end) in self.ranges {
            if start > 0 && end > start && end - start < 1 << 24 {
                // SAFETY: the range is this process's own stack area of strings, writable and
                // no longer read.
                unsafe { std::ptr::write_bytes(start as *mut u8, 0, end - start) };
            }
        }
    }
}

/// Forks G and S. Returns only in S (`Ok`), or in the process where a step failed (`Err`,
/// with the errno); P and G never return.
///
/// # Safety
/// Call only in a freshly forked child that has just entered a new PID namespace with
/// `unshare(CLONE_NEWPID)` (and a mount namespace of its own, where `mount_proc`).
pub unsafe fn start(mount_proc: bool, own: OwnStrings) -> Result<(), (Failed, i32)> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    // SAFETY: syscalls on descriptors and buffers of this function.
    unsafe {
        let mut status_pipe = [0i32; 2];
        if libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC) < 0 {
            return Err((Failed::Fork, errno()));
        }
        let [read_end, write_end] = status_pipe;
        let g = fork();
        if g < 0 {
            return Err((Failed::Fork, errno()));
        }
        if g > 0 {
            libc::close(write_end);
            close_all_but(read_end);
            relay(g, read_end);
        }
        // G: pid 1 of the namespace.
        libc::close(read_end);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if mount_proc {
            let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            let rc = libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                flags,
                std::ptr::null(),
            );
            if rc < 0 {
                return Err((Failed::Proc, errno()));
            }
        }
        // G is a copy of mcpevol (its environment, its memory): nothing in the namespace may
        // read it through /proc/1.
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
        own.forget();
        let s = fork();
        if s < 0 {
            return Err((Failed::Fork, errno()));
        }
        if s > 0 {
            close_all_but(write_end);
            reap(s, write_end);
        }
        // S: goes on to exec the server.
        libc::close(write_end);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        Ok(())
    }
}

/// `fork` as a raw system call: glibc's runs the atfork handlers, which take locks that
/// another thread of the parent may have held when it forked.
unsafe fn fork() -> libc::pid_t {
    // SAFETY: clone with only SIGCHLD and no stack is fork (the argument order of the other,
    // zero arguments differs between architectures, which zeros make moot).
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::SIGCHLD as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        ) as libc::pid_t
    }
}

/// Closes every descriptor but `keep`.
unsafe fn close_all_but(keep: i32) {
    // SAFETY: closing descriptors is all this does.
    unsafe {
        let keep = keep.max(0) as u32;
        let below = keep.checked_sub(1).map(|last| (0, last));
        for (first, last) in below.into_iter().chain([(keep + 1, u32::MAX)]) {
            if libc::syscall(libc::SYS_close_range, first, last, 0u32) < 0 {
                // Before Linux 5.9: one by one, up to the limit on descriptors.
                let max = libc::sysconf(libc::_SC_OPEN_MAX).clamp(1024, 1 << 20) as u32;
                for fd in first..=last.min(max) {
                    libc::close(fd as i32);
                }
            }
        }
    }
}

/// P: waits for G, then ends as the server ended (G reports S's wait status on the pipe).
unsafe fn relay(g: libc::pid_t, status_pipe: i32) -> ! {
    // SAFETY: waitpid, read and exit on our own child and pipe.
    unsafe {
        let mut status = 0i32;
        while libc::waitpid(g, &mut status, 0) < 0 {
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(127);
            }
        }
        let mut reported = 0i32;
        let n = libc::read(
            status_pipe,
            (&mut reported as *mut i32).cast(),
            std::mem::size_of::<i32>(),
        );
        if n == std::mem::size_of::<i32>() as isize {
            status = reported;
        }
        end_as(status)
    }
}

/// G: reaps every child; when S exits, reports its status to P and exits, which ends the
/// namespace.
unsafe fn reap(s: libc::pid_t, status_pipe: i32) -> ! {
    // SAFETY: waitpid, write and exit.
    unsafe {
        loop {
            let mut status = 0i32;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid == s {
                libc::write(
                    status_pipe,
                    (&status as *const i32).cast(),
                    std::mem::size_of::<i32>(),
                );
                libc::_exit(0);
            }
            if pid < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(0);
            }
        }
    }
}

/// Exits with `status`'s code, or dies of its signal (without a core: this process is a copy
/// of mcpevol's memory).
unsafe fn end_as(status: i32) -> ! {
    // SAFETY: signal and exit calls on the calling process.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            libc::prctl(libc::PR_SET_PDEATHSIG, 0);
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}
