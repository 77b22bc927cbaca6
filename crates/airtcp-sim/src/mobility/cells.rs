//! A mobile host's cells: one per base station it can be attached to. A cell is either a
//! wireless link between the base station and the mobile (paper 001's generic wireless
//! link: rate, delay, loss, BER), or an 802.11 BSS whose AP is the base station and in which
//! the mobile is a station. Each BSS is a collision domain of its own: BSSs on different
//! channels, which do not hear one another.

use crate::config::{MobileConfig, Scenario};
use crate::interface::{opposite, Interface};

/// How a base station reaches the mobile in one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellPath {
    /// A wired-model link: `down` is the channel from the base station to the mobile, the
    /// other direction is `opposite(down)`.
    Link { down: u32 },
    /// BSS `bss`, in which the mobile is MAC `mac` and the base station the AP (MAC 0).
    Wlan { bss: u32, mac: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub base_station: usize,
    pub path: CellPath,
}

impl Cell {
    /// The base station's interface to the cell.
    pub fn base_station_side(&self) -> Interface {
        match self.path {
            CellPath::Link { down } => Interface::Channel(down),
            CellPath::Wlan { bss, .. } => Interface::Wlan { bss, mac: 0 },
        }
    }

    /// The mobile's interface to the cell.
    pub fn mobile_side(&self) -> Interface {
        match self.path {
            CellPath::Link { down } => Interface::Channel(opposite(down)),
            CellPath::Wlan { bss, mac } => Interface::Wlan { bss, mac },
        }
    }
}

impl MobileConfig {
    /// The mobile's cells: its links (link i is channel 2i from `a`, 2i + 1 from `b`), then
    /// the BSSs it is a station of, in declaration order.
    pub fn cells(&self, scenario: &Scenario) -> Vec<Cell> {
        let links = scenario.links.iter().enumerate().filter_map(|(i, link)| {
            let a_to_b = 2 * i as u32;
            let (base_station, down) = match (link.a == self.node, link.b == self.node) {
                (true, _) => (link.b, a_to_b + 1),
                (_, true) => (link.a, a_to_b),
                _ => return None,
            };
            Some(Cell {
                base_station,
                path: CellPath::Link { down },
            })
        });
        let wlans = scenario.wlans.iter().enumerate().filter_map(|(b, wlan)| {
            let station = wlan.stations.iter().position(|&s| s == self.node)?;
            Some(Cell {
                base_station: wlan.ap,
                path: CellPath::Wlan {
                    bss: b as u32,
                    mac: station as u32 + 1,
                },
            })
        });
        links.chain(wlans).collect()
    }
}
