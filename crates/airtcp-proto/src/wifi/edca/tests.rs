use super::*;
use AccessCategory::*;

fn params(aifsn: u8, cw_min: u32, cw_max: u32, txop_limit_ns: u64) -> EdcaParams {
    EdcaParams {
        aifsn,
        cw_min,
        cw_max,
        txop_limit_ns,
    }
}

#[test]
fn station_parameters_are_table_9_155_for_ofdm() {
    // aCWmin 15, aCWmax 1023 (802.11a/g/n/ac/ax)
    let of = |ac| EdcaParams::station(ac, 15, 1023, false);
    assert_eq!(of(Bk), params(7, 15, 1023, 0));
    assert_eq!(of(Be), params(3, 15, 1023, 0));
    assert_eq!(of(Vi), params(2, 7, 15, 3_008_000));
    assert_eq!(of(Vo), params(2, 3, 7, 1_504_000));
}

#[test]
fn dsss_phys_have_their_own_txop_limits_and_windows() {
    // 802.11b: aCWmin 31, aCWmax 1023
    let of = |ac| EdcaParams::station(ac, 31, 1023, true);
    assert_eq!(of(Vi), params(2, 15, 31, 6_016_000));
    assert_eq!(of(Vo), params(2, 7, 15, 3_264_000));
    assert_eq!(of(Be), params(3, 31, 1023, 0));
}

#[test]
fn the_ap_uses_the_qap_table() {
    let of = |ac| EdcaParams::ap(ac, 15, 1023, false);
    assert_eq!(of(Bk), params(7, 15, 1023, 0));
    assert_eq!(of(Be), params(3, 15, 63, 0));
    assert_eq!(of(Vi), params(1, 7, 15, 3_008_000));
    assert_eq!(of(Vo), params(1, 3, 7, 1_504_000));
}

#[test]
fn dscp_maps_to_linux_user_priorities_and_802_1d_access_categories() {
    // (DSCP, Linux's user priority, AC): RFC 4594 service classes as RFC 8325 maps them
    let cases = [
        (0, 0, Be),  // DF
        (8, 1, Bk),  // CS1
        (10, 0, Be), // AF11
        (14, 0, Be), // AF13
        (16, 0, Be), // CS2
        (18, 3, Be), // AF21
        (24, 4, Vi), // CS3
        (26, 4, Vi), // AF31
        (32, 4, Vi), // CS4
        (34, 4, Vi), // AF41
        (40, 5, Vi), // CS5
        (44, 6, Vo), // VOICE-ADMIT
        (46, 6, Vo), // EF
        (48, 7, Vo), // CS6
        (56, 7, Vo), // CS7
        (1, 0, Be),  // LE: below CS1's bits, so 0 by the default rule
    ];
    for (dscp, up, ac) in cases {
        assert_eq!(user_priority(dscp), up, "DSCP {dscp}");
        assert_eq!(AccessCategory::of_dscp(dscp), ac, "DSCP {dscp}");
    }
}

#[test]
fn access_categories_order_by_priority_and_have_names() {
    assert!(Vo > Vi && Vi > Be && Be > Bk);
    for ac in AccessCategory::ALL {
        assert_eq!(AccessCategory::from_name(ac.name()), Some(ac));
    }
    assert_eq!(AccessCategory::from_name("voice"), None);
}
