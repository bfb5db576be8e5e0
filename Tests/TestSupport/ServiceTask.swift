import Platform

extension Service {
    /// Runs the service in a task of its own, as a ``ServiceGroup`` would: the task's value
    /// is its failure, or nil when it ended at the stop request.
    public func start(_ context: ServiceContext) -> Task<ServiceFailure?, Never> {
        Task {
            do throws(ServiceFailure) {
                try await run(context)
                return nil
            } catch { return error }
        }
    }
}
