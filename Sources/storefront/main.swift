import Foundation
import StorefrontApp

exit(await StorefrontProgram.main(Array(CommandLine.arguments.dropFirst())))
