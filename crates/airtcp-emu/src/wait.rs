//! Sleeping until a deadline or a packet, whichever is first: one epoll set over the hosts'
//! TUN devices, a timerfd armed at an absolute `CLOCK_MONOTONIC` deadline
//! (`TFD_TIMER_ABSTIME`: a wait computed late still ends on time, no relative sleep to
//! drift) and an eventfd that stopping writes. Level-triggered: a device with packets
//! left after a batch wakes the next wait at once.

use std::io;
use std::os::fd::AsFd;

use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::eventfd::{EfdFlags, EventFd};
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};

const TIMER: u64 = u64::MAX - 1;
const STOP: u64 = u64::MAX;

/// What ended a wait.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Woken {
    /// A device has a packet to read.
    pub packets: bool,
    /// `Stopper::stop` was called.
    pub stop: bool,
}

pub struct Waiter {
    epoll: Epoll,
    timer: TimerFd,
    events: Vec<EpollEvent>,
}

/// Wakes a `Waiter` for good, from any thread.
pub struct Stopper(EventFd);

impl Stopper {
    pub fn new() -> io::Result<Self> {
        let flags = EfdFlags::EFD_NONBLOCK | EfdFlags::EFD_CLOEXEC;
        Ok(Stopper(EventFd::from_value_and_flags(0, flags)?))
    }

    pub fn stop(&self) {
        // Only fails when the counter would overflow, i.e. it is already set.
        let _ = self.0.write(1);
    }
}

impl Waiter {
    /// A waiter over `devices` (reported by their index), stopped by `stopper`.
    pub fn new<D: AsFd>(devices: &[D], stopper: &Stopper) -> io::Result<Self> {
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )?;
        for (index, device) in devices.iter().enumerate() {
            epoll.add(device, EpollEvent::new(EpollFlags::EPOLLIN, index as u64))?;
        }
        epoll.add(&timer, EpollEvent::new(EpollFlags::EPOLLIN, TIMER))?;
        epoll.add(&stopper.0, EpollEvent::new(EpollFlags::EPOLLIN, STOP))?;
        Ok(Waiter {
            epoll,
            timer,
            events: vec![EpollEvent::empty(); devices.len() + 2],
        })
    }

    /// Sleeps until `deadline` (an absolute `CLOCK_MONOTONIC` instant; none: no timeout),
    /// a packet or a stop.
    pub fn wait(&mut self, deadline: Option<TimeSpec>) -> io::Result<Woken> {
        match deadline {
            // Re-arming also clears an expiry nobody read.
            Some(at) => self.timer.set(
                Expiration::OneShot(at),
                TimerSetTimeFlags::TFD_TIMER_ABSTIME,
            )?,
            None => self.timer.unset()?,
        }
        self.poll(EpollTimeout::NONE)
    }

    /// Whether a packet is waiting or a stop was asked, without sleeping.
    pub fn peek(&mut self) -> io::Result<Woken> {
        self.poll(EpollTimeout::ZERO)
    }

    fn poll(&mut self, timeout: EpollTimeout) -> io::Result<Woken> {
        let ready = loop {
            match self.epoll.wait(&mut self.events, timeout) {
                Err(nix::errno::Errno::EINTR) => continue,
                other => break other?,
            }
        };
        let mut woken = Woken::default();
        for event in &self.events[..ready] {
            match event.data() {
                STOP => woken.stop = true,
                TIMER => {}
                _ => woken.packets = true,
            }
        }
        Ok(woken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::WallClock;
    use airtcp_proto::Instant;
    use std::os::fd::OwnedFd;

    fn no_devices() -> Vec<OwnedFd> {
        Vec::new()
    }

    #[test]
    fn a_wait_ends_at_its_deadline_and_not_before() {
        let stopper = Stopper::new().unwrap();
        let mut waiter = Waiter::new(&no_devices(), &stopper).unwrap();
        let clock = WallClock::starting_now();
        let due = Instant::from_nanos(3_000_000);
        let woken = waiter.wait(Some(clock.deadline(due))).unwrap();
        assert_eq!(woken, Woken::default());
        assert!(clock.now() >= due, "woke at {:?}", clock.now());
        // An expired deadline returns at once.
        assert_eq!(
            waiter.wait(Some(clock.deadline(due))).unwrap(),
            Woken::default()
        );
    }

    #[test]
    fn stopping_wakes_a_wait_without_a_deadline() {
        let stopper = Stopper::new().unwrap();
        let mut waiter = Waiter::new(&no_devices(), &stopper).unwrap();
        assert_eq!(waiter.peek().unwrap(), Woken::default());
        stopper.stop();
        assert!(waiter.wait(None).unwrap().stop);
        assert!(waiter.peek().unwrap().stop, "a stop stays set");
    }
}
