import Foundation
import StoreCore
import Testing

@Suite("UUID text")
struct UUIDTextTests {
    @Test("A UUID's text reads as Foundation's UUID(uuidString:) reads it")
    func readsAsFoundation() {
        for _ in 0..<500 {
            let uuid = UUID()
            #expect(UUID(text: uuid.uuidString) == uuid)
            #expect(UUID(text: uuid.uuidString.lowercased()) == uuid)
        }
        let malformed = ["", "not a uuid", "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5FF",
                         "E621E1F8C36C-495A-93FC-0C247A3E6E5F0", "E621E1F8-C36C-495A-93FC+0C247A3E6E5F", "G621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                         "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}", "E621E1F8-C36C-495A-93FC-0C247A3E6É5"]
        for text in malformed {
            #expect(UUID(text: text) == nil, "\(text)")
            #expect(UUID(uuidString: text) == nil, "Foundation reads \(text)")
        }
        #expect(UUID(text: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f") == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    }
}
