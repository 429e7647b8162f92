import Testing
@testable import Domino
