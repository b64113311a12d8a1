public import Foundation

extension TestEnvironment {
    /// The Python interpreter of the virtualenv that holds GrowthBook's gbstats, from `CARDINAL_GBSTATS_PYTHON`
    /// (`make test` sets it to the output of scripts/gbstats/install.sh).
    public static func gbstatsPython() throws -> URL {
        guard let value = ProcessInfo.processInfo.environment["CARDINAL_GBSTATS_PYTHON"], !value.isEmpty else {
            throw SetupError(description: """
                CARDINAL_GBSTATS_PYTHON is not set: set it to the output of scripts/gbstats/install.sh, which installs \
                gbstats into .build/gbstats/venv (make test does both)
                """)
        }
        guard FileManager.default.isExecutableFile(atPath: value) else {
            throw SetupError(description: "CARDINAL_GBSTATS_PYTHON is \(value), which is not an executable; run scripts/gbstats/install.sh")
        }
        return URL(fileURLWithPath: value)
    }
}
