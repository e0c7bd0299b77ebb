package dev.triggeroutbox.platform;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.util.UUID;

/**
 * Every {@code UUID} attribute of the entities, passed through unchanged. It exists for Payara:
 * EclipseLink's own UUID conversion (4.0.7, in Payara 6) fails on a NULL column
 * ({@code NullPointerException} in {@code UUIDConverter}); an explicit converter replaces it. Hibernate
 * (WildFly) maps UUID natively either way. Ids are not converted (JPA applies no converter to ids).
 */
@Converter(autoApply = true)
public class UuidColumns implements AttributeConverter<UUID, UUID> {

    @Override
    public UUID convertToDatabaseColumn(UUID attribute) {
        return attribute;
    }

    @Override
    public UUID convertToEntityAttribute(UUID column) {
        return column;
    }
}
