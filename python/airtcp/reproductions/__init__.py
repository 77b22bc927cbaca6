"""One-command reproductions of the experiments in ../shared/papers."""

from . import (
    ahn_dar,
    atc_anomaly,
    han_mesh,
    mun_mbt,
    park_local_ack,
    park_local_ack_wlan,
    ryu_ack_priority,
    ryu_ack_priority_ac,
)

REPRODUCTIONS = {
    module.NAME: module
    for module in (
        ryu_ack_priority,
        park_local_ack,
        park_local_ack_wlan,
        ahn_dar,
        mun_mbt,
        han_mesh,
        atc_anomaly,
        ryu_ack_priority_ac,
    )
}
