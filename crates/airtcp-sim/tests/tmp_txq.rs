mod common;
#[test]
fn tmp() {
    for f in [
        "/tmp/txq_fq_codel_airtime.json",
        "/tmp/txq_fq_codel.json",
        "/tmp/txq_anomaly.json",
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let s = common::run(&v).summary;
        let c = &s.wlans[0].counters;
        eprintln!(
            "RESULT {f} {} {} {} {} {:?}",
            s.events,
            s.aggregate_goodput_bps,
            c.codel_drops,
            c.ampdus,
            c.station_downlink_airtime_ns
        );
    }
}
