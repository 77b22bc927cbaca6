//! The queues of a channel with geometry for the queue series and the run summary: each
//! interface's (a MAC's, or with EDCA for several ACs one AC's of a MAC), metered as the
//! central DCF's EDCAFs are (`wlan::dcf::queue_meter`).

use super::*;
use crate::sojourn::SojournSample;
use crate::wlan::dcf::frames_ip_bytes;

impl SharedChannel {
    /// Measures every interface's sojourns (`queue_sojourn`; before any traffic).
    pub fn meter_sojourns(&mut self) {
        for interface in &mut self.interfaces {
            interface.meter = Some(Box::default());
        }
    }

    /// Its queues as `sample_queues` gives them: one an interface, when metered.
    pub fn queue_count(&self) -> usize {
        self.interfaces.iter().filter(|i| i.meter.is_some()).count()
    }

    /// Which queue interface `interface` is.
    fn queue_id(&self, interface: &Interface) -> MacQueueId {
        MacQueueId {
            bss: self.wlans[interface.wlan as usize].bss,
            mac: interface.mac,
            ac: (interface.by_ac.is_some())
                .then(|| AccessCategory::ALL[usize::from(interface.edcaf)]),
        }
    }

    /// Each interface's queues now, when metered: frames (in its mac80211 queues or qdisc
    /// and on the channel), bytes, drops and marks so far, and the sojourns since the last
    /// call.
    pub fn sample_queues(&mut self) -> Vec<MacQueueSample> {
        let mut samples = Vec::with_capacity(self.queue_count());
        for k in 0..self.interfaces.len() {
            let id = self.queue_id(&self.interfaces[k]);
            let Interface {
                queues,
                txqs,
                meter: Some(meter),
                ..
            } = &mut self.interfaces[k]
            else {
                continue;
            };
            let above = txqs.as_ref().map_or(0, |txqs| txqs.backlog(0));
            let above_bytes = txqs.as_ref().map_or(0, |txqs| txqs.backlog_bytes(0));
            samples.push(MacQueueSample {
                id,
                packets: (queues.iter().map(VecDeque::len).sum::<usize>() + above) as u32,
                bytes: frames_ip_bytes(queues.iter().flatten()) + above_bytes,
                drops: meter.drops,
                ecn_marks: meter.ecn_marks,
                sojourn: meter.take_sojourn(),
            });
        }
        // in the central DCF's order: by WLAN, MAC, then AC (a MAC's other ACs' interfaces
        // come after all of its WLAN's MACs)
        samples.sort_by_key(|sample| order(sample.id));
        samples
    }

    /// With `queue_sojourn`, each interface's sojourns over the measurement window.
    pub fn window_sojourns(&self) -> Vec<(MacQueueId, SojournSample)> {
        let interfaces = self.interfaces.iter();
        let mut sojourns: Vec<_> = interfaces
            .filter_map(|i| Some((self.queue_id(i), i.meter.as_ref()?.sojourns.window_sample())))
            .collect();
        sojourns.sort_by_key(|(id, _)| order(*id));
        sojourns
    }

    /// The measurement window begins: sojourns count from now.
    pub fn start_sojourn_window(&mut self) {
        for meter in self.interfaces.iter_mut().filter_map(|i| i.meter.as_mut()) {
            meter.sojourns.start_window();
        }
    }
}

/// The central DCF's order of queues: WLAN, MAC, AC (`AccessCategory::ALL`'s).
fn order(id: MacQueueId) -> (u32, u32, Option<u8>) {
    (id.bss, id.mac, id.ac.map(|ac| ac as u8))
}
