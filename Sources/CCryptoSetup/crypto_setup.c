// OpenSSL frees its global state (locks, algorithm tables) in an atexit handler, so a program that
// exits while another thread signs or verifies crashes in that thread (the storefront quitting with a
// refresh under way, an app's test process ending with an update still verified: 2 exits in 3 crashed
// in ProcessExitTests). Asked once, before anything else in the process reaches libcrypto (the first call of
// OPENSSL_init_crypto decides), OpenSSL leaves its state to the process's end instead.
#include "crypto_setup.h"
#include <openssl/crypto.h>

__attribute__((constructor)) static void storefront_crypto_setup(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
