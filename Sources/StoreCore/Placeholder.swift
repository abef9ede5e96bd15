// StoreCore
