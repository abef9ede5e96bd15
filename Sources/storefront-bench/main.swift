print("storefront-bench: not yet")
