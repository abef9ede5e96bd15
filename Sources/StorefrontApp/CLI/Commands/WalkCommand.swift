import Foundation
import StoreCore

/// `storefront walk FILE` and `storefront demo FILE [--speed X]`: the storefront with the scenario as a
/// checklist, performed by hand (walk) or played as key presses (demo). A bad file stops before the terminal opens.
enum WalkCommand {
    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        let path = options.files[0]
        try OutputFile.check(options)
        let scenario: Scenario
        do {
            scenario = try ScenarioParser.parse(file: path)
            try ScenarioParser.validate(scenario, against: StoreContext.resolve(options, catalogPath: scenario.catalogPath).catalog)
        } catch let error as ScenarioError {
            Console.error("storefront: \(error)")
            return 2
        }
        return try await StorefrontTUI.run(options: options, layerCatalog: scenario.catalogPath, fresh: true) { context, catalogPath, store, manager in
            let session = await WalkSession(scenario: scenario, catalog: context.catalog, catalogPath: catalogPath, store: store, manager: manager, options: options)
            return ({ WalkthroughState(app: $0, walk: session.initialState) }, session)
        }
    }
}
