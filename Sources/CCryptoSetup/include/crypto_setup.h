#ifndef STOREFRONT_CRYPTO_SETUP_H
#define STOREFRONT_CRYPTO_SETUP_H
// Nothing to call: crypto_setup.c's constructor runs when the program loads.
#endif
