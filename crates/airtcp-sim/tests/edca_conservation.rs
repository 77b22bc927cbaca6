//! No MSDU is lost or duplicated whatever the central DCF runs (EDCA, A-MPDU, mac80211's
//! queues, an AP agent, channel errors, stations at their own MCSs): every datagram the
//! stations' and the AP's flows send is delivered once, or counted dropped by the MAC.

mod common;

use common::run;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_datagram_is_delivered_once_or_counted_dropped(
        n in 1usize..4,
        dscps in common::dscp_sets(),
        ampdu in any::<bool>(),
        queueing in common::queueings(),
        ack_priority in any::<bool>(),
        loss in proptest::sample::select(&[0.0, 0.1, 0.4][..]),
        slow in any::<bool>(),
        seed in 1u64..1000,
    ) {
        let agent = ack_priority.then_some("ack_priority");
        let summary = run(&common::two_way_udp(n, &dscps, ampdu, queueing, agent, loss, slow, seed)).summary;
        let (sent, delivered, dropped, msdus) = common::datagram_accounts(&summary);
        prop_assert_eq!(sent, delivered + dropped, "sent {} delivered {} dropped {}",
            sent, delivered, dropped);
        prop_assert_eq!(msdus, delivered);
    }
}
