// StorefrontApp
