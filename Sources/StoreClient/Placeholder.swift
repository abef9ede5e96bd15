// StoreClient
