// StoreEngine
