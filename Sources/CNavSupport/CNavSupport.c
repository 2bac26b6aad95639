#include "CNavSupport.h"

static int claimed;

int navreplay_claim_once(void) {
    return __atomic_exchange_n(&claimed, 1, __ATOMIC_SEQ_CST) == 0;
}
