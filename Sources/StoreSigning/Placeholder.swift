// StoreSigning
