/// The bundled catalog's product IDs, by what the tests call them.
public enum ID {
    public static let coins = "com.lumenquest.coins.100"
    public static let gems = "com.lumenquest.gems.500"
    public static let pro = "com.lumenquest.pro"
    public static let removeAds = "com.lumenquest.removeads"
    public static let season = "com.lumenquest.seasonpass"
    public static let proYearly = "com.lumenquest.pro.yearly"
    public static let proMonthly = "com.lumenquest.pro.monthly"
    public static let plusYearly = "com.lumenquest.plus.yearly"
    public static let plusMonthly = "com.lumenquest.plus.monthly"
    public static let group = "lumenquest.membership"
}
