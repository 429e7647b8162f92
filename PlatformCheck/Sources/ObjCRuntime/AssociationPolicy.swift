// `objc_AssociationPolicy`, as the SDK imports it from <objc/runtime.h>. A file of its
// own, with no imports, so that apple-targets.sh compiles the same declaration into
// its ObjectiveC stand-in (../../AppleSDK/ObjectiveC.swift).

/// Policies related to associative references, as the SDK imports
/// `OBJC_ENUM(uintptr_t, objc_AssociationPolicy)`.
public enum objc_AssociationPolicy: UInt, @unchecked Sendable {
    /// An unretained reference to the associated object.
    case OBJC_ASSOCIATION_ASSIGN = 0
    /// A strong reference; the association is not made atomically.
    case OBJC_ASSOCIATION_RETAIN_NONATOMIC = 1
    /// The associated object is copied; the association is not made atomically.
    case OBJC_ASSOCIATION_COPY_NONATOMIC = 3
    /// A strong reference; the association is made atomically.
    case OBJC_ASSOCIATION_RETAIN = 769
    /// The associated object is copied; the association is made atomically.
    case OBJC_ASSOCIATION_COPY = 771
}
